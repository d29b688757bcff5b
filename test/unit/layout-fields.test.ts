import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ExtractionOutcome } from '../../src/modules/incoming-invoices/extraction.model.js';
import { fieldsFromLayout } from '../../src/modules/incoming-invoices/layout/fields.js';
import { page } from './layout-helpers.js';

type Runs = [number, number, string][];
const read = (runs: Runs, ...more: Runs[]): ExtractionOutcome =>
  fieldsFromLayout([page(runs, 1), ...more.map((r, i) => page(r, i + 2))], 'pdf_text');
const conf = (o: ExtractionOutcome, f: string) =>
  (o.provenance as Record<string, { confidence: number }>)[f]?.confidence;
const codes = (o: ExtractionOutcome) => o.warnings.map((w) => w.code);

const letter: Runs = [
  [50, 40, 'Muster Software GmbH'],
  [50, 125, 'Muster Software GmbH · Hauptstraße 12 · 10115 Berlin'],
  [50, 140, 'Kunde Handel GmbH'],
  [50, 152, 'Marktplatz 1'],
  [50, 164, '60311 Frankfurt am Main'],
];
const table: Runs = [
  [50, 280, 'Pos.'],
  [85, 280, 'Beschreibung'],
  [300, 280, 'Menge'],
  [380, 280, 'Einzelpreis'],
  [480, 280, 'Gesamtbetrag'],
  [50, 294, '1'],
  [85, 294, 'Beratung'],
  [300, 294, '10'],
  [380, 294, '100,00'],
  [480, 294, '1.000,00'],
];

interface Case {
  name: string;
  pages: Runs[];
  expect: Record<string, unknown>;
  absent?: string[];
  /** Fields that must be reported with confidence ≥ 0.9 / below 0.9. */
  sure?: string[];
  unsure?: string[];
  warnings?: string[];
}

const cases: Case[] = [
  {
    name: 'German letter: labels with values to their right; the delivery date printed first is not the invoice date',
    pages: [
      [
        ...letter,
        [340, 140, 'Lieferdatum'],
        [450, 140, '01.12.2026'],
        [340, 153, 'Rechnungsdatum'],
        [450, 153, '06.12.2026'],
        [340, 166, 'Rechnungs-Nr.'],
        [450, 166, 'RE-2026-0042'],
        [340, 179, 'Fällig am'],
        [450, 179, '20.12.2026'],
        [50, 250, 'Rechnung'],
        ...table,
        [340, 330, 'Nettobetrag'],
        [540, 330, '1.000,00 €'],
        [340, 344, 'MwSt 19 %'],
        [540, 344, '190,00 €'],
        [340, 358, 'Gesamtbetrag'],
        [540, 358, '1.190,00 €'],
      ],
    ],
    expect: {
      invoice_number: 'RE-2026-0042',
      date: '2026-12-06',
      delivery_date: '2026-12-01',
      due_date: '2026-12-20',
      net_total: '1000.00',
      tax_total: '190.00',
      gross_total: '1190.00',
      currency: 'EUR',
      document_type: 'Invoice',
      supplier_name: 'Muster Software GmbH',
      supplier_street: 'Hauptstraße 12',
      supplier_postcode: '10115',
      supplier_city: 'Berlin',
    },
    sure: ['invoice_number', 'date', 'gross_total', 'net_total', 'tax_total'],
  },
  {
    name: 'a "Gesamtbetrag" column header does not make the first line the total',
    pages: [[...letter, [340, 150, 'Rechnungsnummer'], [450, 150, 'R-1'], ...table]],
    expect: { invoice_number: 'R-1' },
    absent: ['gross_total', 'net_total', 'tax_total'],
  },
  {
    name: 'English cells: labels above values; only "Date" as the date label',
    pages: [
      [
        [50, 40, 'Acme Widgets Ltd', 16],
        [50, 200, 'Invoice No.'],
        [175, 200, 'Date'],
        [300, 200, 'Customer no.'],
        [50, 213, 'INV-77'],
        [175, 213, '6 December 2026'],
        [300, 213, '12345'],
        [50, 400, 'Subtotal'],
        [160, 400, 'VAT 20%'],
        [270, 400, 'Total amount'],
        [50, 413, '£1,000.00'],
        [160, 413, '£200.00'],
        [270, 413, '£1,200.00'],
      ].map(([x, y, t]) => [x, y, t] as [number, number, string]),
    ],
    expect: {
      invoice_number: 'INV-77',
      date: '2026-12-06',
      net_total: '1000.00',
      tax_total: '200.00',
      gross_total: '1200.00',
      currency: 'GBP',
    },
    sure: ['gross_total'],
    unsure: ['date'],
  },
  {
    name: 'French: Total HT / TVA / Total TTC, day-first slashes, spaces as thousands separators',
    pages: [
      [
        [50, 40, 'Facture'],
        [340, 140, 'N° de facture : F2026-0009'],
        [340, 153, 'Date de facture : 06/12/2026'],
        [340, 166, "Date d'échéance : 05/01/2027"],
        [340, 330, 'Total HT'],
        [540, 330, '1 000,00 €'],
        [340, 344, 'TVA 20 %'],
        [540, 344, '200,00 €'],
        [340, 358, 'Total TTC'],
        [540, 358, '1 200,00 €'],
      ],
    ],
    expect: {
      invoice_number: 'F2026-0009',
      date: '2026-12-06',
      due_date: '2027-01-05',
      gross_total: '1200.00',
      net_total: '1000.00',
      tax_total: '200.00',
      document_type: 'Invoice',
    },
    sure: ['gross_total'],
  },
  {
    name: 'prepayment: Zahlbetrag is the amount due, the gross is the Gesamtbetrag',
    pages: [
      [
        [340, 150, 'Rechnungsnummer: 2026/117'],
        [340, 163, 'Datum: 6.12.26'],
        [340, 330, 'Summe netto'],
        [540, 330, '1.000,00'],
        [340, 344, '19 % MwSt auf 1.000,00: 190,00'],
        [340, 358, 'Gesamtbetrag'],
        [540, 358, '1.190,00'],
        [340, 372, 'abzgl. Anzahlung'],
        [540, 372, '-500,00'],
        [340, 386, 'Zahlbetrag'],
        [540, 386, '690,00'],
      ],
    ],
    expect: {
      invoice_number: '2026/117',
      date: '2026-12-06',
      gross_total: '1190.00',
      prepaid_total: '500.00',
      amount_due: '690.00',
      taxes: [{ rate: '19', net: '1000.00', tax: '190.00' }],
    },
    sure: ['gross_total', 'amount_due', 'prepaid_total'],
  },
  {
    name: 'without a prepayment the Zahlbetrag is the gross',
    pages: [
      [
        [340, 330, 'Nettobetrag'],
        [540, 330, '100,00'],
        [340, 344, 'USt 7 %'],
        [540, 344, '7,00'],
        [340, 358, 'Zahlbetrag'],
        [540, 358, '107,00'],
      ],
    ],
    expect: { gross_total: '107.00', amount_due: '107.00', net_total: '100.00', tax_total: '7.00' },
  },
  {
    name: 'credit note with negative totals: a Credit with the amounts of the credit',
    pages: [
      [
        [50, 40, 'Gutschrift'],
        [340, 150, 'Gutschriftsnummer'],
        [450, 150, 'GS-7'],
        [340, 163, 'Gutschriftsdatum'],
        [450, 163, '2026-12-06'],
        [340, 330, 'Nettobetrag'],
        [540, 330, '-100,00 €'],
        [340, 344, 'MwSt 19 %'],
        [540, 344, '-19,00 €'],
        [340, 358, 'Gesamtbetrag'],
        [540, 358, '-119,00 €'],
      ],
    ],
    expect: { document_type: 'Credit', invoice_number: 'GS-7', gross_total: '119.00', net_total: '100.00' },
  },
  {
    name: 'totals that do not add up: reported unsure with a warning',
    pages: [
      [
        [340, 330, 'Nettobetrag'],
        [540, 330, '100,00'],
        [340, 344, 'MwSt 19 %'],
        [540, 344, '19,00'],
        [340, 358, 'Gesamtbetrag'],
        [540, 358, '129,00'],
      ],
    ],
    expect: { gross_total: '129.00' },
    unsure: ['gross_total'],
    warnings: ['totals_inconsistent'],
  },
  {
    name: 'a gross alone is not split into net and tax',
    pages: [
      [
        [340, 358, 'Rechnungsbetrag'],
        [540, 358, '1.190,00 EUR'],
      ],
    ],
    expect: { gross_total: '1190.00', currency: 'EUR' },
    absent: ['net_total', 'tax_total'],
    unsure: ['gross_total'],
  },
  {
    name: "IBAN with a wrong checksum is left out; the buyer's VAT id is not the supplier's",
    pages: [
      [
        [340, 150, 'Ihre USt-IdNr.'],
        [450, 150, 'DE987654321'],
        [50, 780, 'IBAN DE89 3704 0044 0532 0130 01'],
        [300, 780, 'USt-IdNr. DE123456789'],
      ],
    ],
    expect: { supplier_vat_id: 'DE123456789' },
    absent: ['iban'],
  },
  {
    name: 'IBAN and BIC in a footer with separators',
    pages: [[[50, 780, 'Muster GmbH · IBAN DE89 3704 0044 0532 0130 00 · BIC COBADEFFXXX']]],
    expect: { iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' },
    sure: ['iban'],
  },
  {
    name: 'totals on the second page',
    pages: [
      [
        [340, 150, 'Invoice number'],
        [450, 150, 'INV-9'],
        [340, 163, 'Invoice date'],
        [450, 163, 'December 6, 2026'],
      ],
      [
        [340, 100, 'Net amount'],
        [540, 100, '2,000.00'],
        [340, 114, 'VAT 20%'],
        [540, 114, '400.00'],
        [340, 128, 'Total'],
        [540, 128, '2,400.00'],
      ],
    ],
    expect: { invoice_number: 'INV-9', date: '2026-12-06', gross_total: '2400.00' },
    sure: ['gross_total'],
  },
  {
    name: 'two different totals under the same label: unsure',
    pages: [
      [
        [340, 344, 'Gesamtbetrag'],
        [540, 344, '100,00'],
        [340, 700, 'Gesamtbetrag'],
        [540, 700, '200,00'],
      ],
    ],
    expect: {},
    unsure: ['gross_total'],
  },
  {
    name: 'an unlabelled letter date is read, unsure',
    pages: [
      [
        [400, 100, 'Berlin, 6. Dezember 2026'],
        [340, 150, 'Rechnung Nr. 4711'],
      ],
    ],
    expect: { date: '2026-12-06', invoice_number: '4711' },
    unsure: ['date'],
  },
  {
    name: 'a label in a sidebar beside the table header still counts; the column header does not',
    pages: [
      [
        [50, 200, 'Pos.'],
        [85, 200, 'Beschreibung'],
        [250, 200, 'Einzelpreis'],
        [340, 200, 'Gesamtbetrag'],
        [430, 200, 'Fällig am'],
        [430, 212, '20.12.2026'],
        [50, 214, '1'],
        [85, 214, 'Anzahlung laut Angebot'],
        [250, 214, '500,00'],
        [340, 214, '500,00'],
      ],
    ],
    expect: { due_date: '2026-12-20' },
    absent: ['gross_total', 'prepaid_total'],
  },
  { name: 'no words, no fields', pages: [[]], expect: {}, absent: ['invoice_number', 'date', 'gross_total'] },
];

describe('layout reader: fields from positioned words', () => {
  for (const c of cases)
    it(c.name, () => {
      const [first, ...more] = c.pages;
      const out = read(first!, ...more);
      for (const [field, value] of Object.entries(c.expect))
        assert.deepEqual((out.fields as Record<string, unknown>)[field], value, field);
      for (const field of c.absent ?? [])
        assert.equal((out.fields as Record<string, unknown>)[field], undefined, field);
      for (const field of c.sure ?? [])
        assert.ok((conf(out, field) ?? 0) >= 0.9, `${field} sure: ${conf(out, field)}`);
      for (const field of c.unsure ?? []) {
        const v = conf(out, field);
        assert.ok(v === undefined || v < 0.9, `${field} unsure: ${v}`);
      }
      for (const code of c.warnings ?? []) assert.ok(codes(out).includes(code), `warning ${code}`);
      for (const p of Object.values(out.provenance)) assert.equal(p?.source, 'pdf_text');
    });

  it('OCR values without a check are never reported as sure', () => {
    const p = page([
      [340, 150, 'Rechnungsnummer'],
      [450, 150, 'RE-1'],
      [340, 163, 'Rechnungsdatum'],
      [450, 163, '06.12.2026'],
    ]);
    const out = fieldsFromLayout([{ ...p, words: p.words.map((w) => ({ ...w, confidence: 0.95 })) }], 'ocr');
    assert.equal(out.fields.invoice_number, 'RE-1');
    assert.ok((conf(out, 'invoice_number') ?? 1) < 0.9);
    assert.ok((conf(out, 'date') ?? 1) < 0.9);
    assert.equal(out.provenance.invoice_number?.source, 'ocr');
  });
});
