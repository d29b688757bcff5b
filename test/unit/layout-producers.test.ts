import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldsFromLayout } from '../../src/modules/incoming-invoices/layout/fields.js';
import { readValue } from '../../src/modules/incoming-invoices/layout/read.js';
import { findAmounts } from '../../src/modules/incoming-invoices/layout/values.js';
import { page } from './layout-helpers.js';

/**
 * Layouts of other producers that the reader got wrong (corpus/invoices-dev and the test
 * suite drawn by eval/foreign.ts): one case per fix, the page reduced to what shows it.
 */
type Runs = [number, number, string][];

interface Case {
  name: string;
  runs: Runs;
  expect: Record<string, unknown>;
  absent?: string[];
  /** Fields that must not be reported with confidence ≥ 0.9. */
  unsure?: string[];
}

const cases: Case[] = [
  {
    name: 'a headline "Handelsrechnung Nr. 471102 vom 05.03.2018" names number and date',
    runs: [
      [50, 60, 'Handelsrechnung Nr. 471102 vom 05.03.2018'],
      [50, 90, 'Lieferant GmbH'],
    ],
    expect: { invoice_number: '471102', date: '2018-03-05', document_type: 'Invoice' },
  },
  {
    name: 'a Dutch headline "FACTUUR Nummer 123 van 3 november 2026"',
    runs: [[50, 60, 'FACTUUR Nummer 123 van 3 november 2026']],
    expect: { invoice_number: '123', date: '2026-11-03' },
  },
  {
    name: '"Beleg-Datum" is the document date; a bare "Nummer" names the number',
    runs: [
      [340, 100, 'Nummer'],
      [450, 100, 'K-77'],
      [340, 113, 'Beleg-Datum'],
      [450, 113, ': 16.09.2013'],
    ],
    expect: { invoice_number: 'K-77', date: '2013-09-16' },
  },
  {
    name: 'captions printed under their values in a row are read upwards',
    runs: [
      [50, 200, 'R-2026-17'],
      [160, 200, '20-10-2015'],
      [50, 212, 'Invoice number'],
      [160, 212, 'Invoice date'],
    ],
    expect: { invoice_number: 'R-2026-17', date: '2015-10-20' },
    unsure: ['invoice_number', 'date'],
  },
  {
    name: '"Rechnungssumme ohne USt." is the net, "Bruttosumme" the gross, "Steuerbetrag" the tax',
    runs: [
      [300, 500, 'Rechnungssumme ohne USt.'],
      [480, 500, '624,90'],
      [300, 513, 'Steuerbetrag'],
      [480, 513, '46,25'],
      [300, 526, 'Bruttosumme'],
      [480, 526, '671,15'],
    ],
    expect: { net_total: '624.90', tax_total: '46.25', gross_total: '671.15' },
  },
  {
    name: 'a totals table with a row per rate: the sum row under the headers is the total',
    runs: [
      [300, 700, 'Nettobetrag'],
      [380, 700, 'MwSt-Betrag'],
      [460, 700, 'Endbetrag'],
      [300, 710, '-4,85'],
      [380, 710, '-0,92'],
      [460, 710, '-5,77'],
      [300, 719, '-2,82'],
      [380, 719, '-0,20'],
      [460, 719, '-3,02'],
      [300, 737, '-7,67'],
      [380, 737, '-1,12'],
      [460, 737, '-8,79'],
    ],
    expect: { net_total: '7.67', tax_total: '1.12', gross_total: '8.79', document_type: 'Credit' },
  },
  {
    name: 'the sum row is found past a speck between the rows and a wider gap above it (a scan)',
    runs: [
      [300, 700, 'Nettobetrag'],
      [380, 700, 'MwSt-Betrag'],
      [460, 700, 'Endbetrag'],
      [300, 711, '-4,85'],
      [380, 711, '-0,92'],
      [460, 711, '=5,77'],
      [340, 717, ':'],
      [300, 723, '2,82'],
      [380, 723, '-0,20'],
      [460, 723, '-3,02'],
      [300, 749, '-7,67'],
      [380, 749, '-1,12'],
      [460, 749, '-8,79'],
    ],
    expect: { net_total: '7.67', tax_total: '1.12', gross_total: '8.79' },
  },
  {
    name: '"Reste dû" is the amount due: the gross is not reported as due with confidence',
    runs: [
      [300, 500, 'Net à payer TTC'],
      [450, 500, '804,86'],
      [300, 513, 'Reste dû'],
      [450, 513, '225,14'],
    ],
    expect: { amount_due: '225.14' },
    unsure: ['amount_due'],
  },
  {
    name: "the VAT id in the buyer's block after \"Kunde:\" is not the supplier's; the letterhead's is",
    runs: [
      [50, 40, 'Lieferant GmbH'],
      [50, 72, 'USt-IdNr. DE123456789'],
      [50, 110, 'Kunde:'],
      [50, 122, 'Musterkunde AG'],
      [50, 146, 'USt-IdNr. DE811569869'],
    ],
    expect: { supplier_vat_id: 'DE123456789' },
  },
  {
    name: 'Dutch "Klant:" marks the buyer\'s block, "BTW-nummer" labels the supplier\'s VAT id',
    runs: [
      [50, 110, 'Klant:'],
      [50, 146, 'BTW-nummer DE811569869'],
      [50, 800, 'Lieferant GmbH · BTW-nummer DE123456789'],
    ],
    expect: { supplier_vat_id: 'DE123456789' },
  },
];

describe('layout reader: other producers', () => {
  for (const c of cases)
    it(c.name, () => {
      const out = fieldsFromLayout([page(c.runs)], 'pdf_text');
      const fields = out.fields as Record<string, unknown>;
      for (const [field, value] of Object.entries(c.expect)) assert.deepEqual(fields[field], value, field);
      for (const field of c.absent ?? []) assert.equal(fields[field], undefined, field);
      for (const field of c.unsure ?? []) {
        const v = (out.provenance as Record<string, { confidence: number }>)[field]?.confidence;
        assert.ok(v === undefined || v < 0.9, `${field} unsure: ${v}`);
      }
    });

  const amounts: [string, string[]][] = [
    ['Rs 1939', ['1939.00']],
    ['₹1,939', ['1939.00']],
    ['Total: INR 12 500', ['12500.00']],
    ['EUR 1.234,56', ['1234.56']],
    // Without a currency sign a whole number is a quantity, a year or a position.
    ['Invoice 2026', []],
    ['Menge 5 Stk', []],
  ];
  for (const [text, want] of amounts)
    it(`amounts in "${text}" → ${want.join(', ') || 'none'}`, () => {
      assert.deepEqual(
        findAmounts(text).map((a) => a.value),
        want,
      );
    });

  const vat: [string, string | undefined][] = [
    ['DE123456789', 'DE123456789'],
    [': DE 123 456 789', 'DE123456789'],
    ['ATU12345678', 'ATU12345678'],
    // A valid id followed by one more digit is another number, not the id.
    ['ATU123456789', undefined],
    ['DE1234567890', undefined],
  ];
  for (const [text, want] of vat)
    it(`VAT id "${text}" → ${want ?? 'none'}`, () => {
      assert.equal(readValue('vat', text, 'de')?.value, want);
    });
});
