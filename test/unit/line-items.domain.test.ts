import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldsFromLayout } from '../../src/modules/incoming-invoices/layout/fields.js';
import {
  lineItemsFromRows,
  parseNumber,
} from '../../src/modules/incoming-invoices/layout/line-items.domain.js';
import { page } from './layout-helpers.js';

const num = (s: string) => {
  const d = parseNumber(s);
  return d && { units: String(d.units), scale: d.scale };
};

describe('parseNumber', () => {
  const cases: [string, [string, number] | undefined][] = [
    ['12', ['12', 0]],
    ['1.234,56', ['123456', 2]],
    ['1,234.56', ['123456', 2]],
    ['2,5', ['25', 1]],
    ['19.99', ['1999', 2]],
    ['0.125', ['125', 3]],
    ['1.500', ['1500', 0]],
    ['12,500', ['12500', 0]],
    ['1.234.567', ['1234567', 0]],
    ["1'234.50", ['123450', 2]],
    ['€ 12,00', ['1200', 2]],
    ['12,00 EUR', ['1200', 2]],
    ['-3,00', ['-300', 2]],
    ['05.06.2018', undefined],
    ['RE-1', undefined],
    ['abc', undefined],
  ];
  for (const [text, want] of cases)
    it(`${text} → ${want?.join(' e-') ?? 'none'}`, () =>
      assert.deepEqual(num(text), want && { units: want[0], scale: want[1] }));
});

describe('lineItemsFromRows', () => {
  const cases: {
    name: string;
    rows: string[][];
    lines?: Record<string, string>[];
    refused?: RegExp;
  }[] = [
    {
      name: 'German table with position, unit and VAT rate; totals end it',
      rows: [
        ['Rechnung RE-1'],
        ['Pos.', 'Bezeichnung', 'Menge', 'Einheit', 'Einzelpreis', 'USt', 'Gesamt'],
        ['1', 'Beratung', '2,5', 'Std.', '120,00', '19 %', '300,00'],
        ['Konzeption und Workshop'],
        ['2', 'Lizenz', '3', 'Stk.', '49,99', '19 %', '149,97'],
        ['Zwischensumme', '449,97'],
        ['Summe', '535,46'],
      ],
      lines: [
        {
          title: 'Beratung',
          description: 'Konzeption und Workshop',
          quantity: '2.5',
          unit: 'Std.',
          unit_price: '120.00',
          net_total: '300.00',
          tax_rate: '19',
        },
        {
          title: 'Lizenz',
          quantity: '3',
          unit: 'Stk.',
          unit_price: '49.99',
          net_total: '149.97',
          tax_rate: '19',
        },
      ],
    },
    {
      name: 'English table, thousands separators, rounding half away from zero',
      rows: [
        ['Description', 'Qty', 'Unit price', 'Amount'],
        ['Hosting (annual)', '1', '1,200.00', '1,200.00'],
        ['Extra storage', '3', '0.125', '0.38'],
        ['Total', '1,200.38'],
      ],
      lines: [
        { title: 'Hosting (annual)', quantity: '1', unit_price: '1200.00', net_total: '1200.00' },
        { title: 'Extra storage', quantity: '3', unit_price: '0.125', net_total: '0.38' },
      ],
    },
    {
      name: 'Dutch and French headers',
      rows: [
        ['Omschrijving', 'Aantal', 'Prijs', 'Bedrag'],
        ['Onderhoud', '4', '25,00', '100,00'],
        ['Totaal', '100,00'],
      ],
      lines: [{ title: 'Onderhoud', quantity: '4', unit_price: '25.00', net_total: '100.00' }],
    },
    {
      name: 'one row that does not add up: no line at all',
      rows: [
        ['Bezeichnung', 'Menge', 'Einzelpreis', 'Gesamt'],
        ['Beratung', '2', '100,00', '200,00'],
        ['Reise', '1', '80,00', '85,00'],
      ],
      refused: /1 × 80.00 is not 85.00/,
    },
    {
      name: 'a row without quantity and price: no line at all',
      rows: [
        ['Description', 'Qty', 'Price', 'Amount'],
        ['Discount', '-10.00'],
      ],
      refused: /no quantity, price and amount/,
    },
    {
      name: 'no table header: nothing seen',
      rows: [['Invoice 7'], ['Consulting', '2', '100.00', '200.00']],
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      const got = lineItemsFromRows(c.rows);
      assert.deepEqual(got.lines, c.lines);
      if (c.refused) assert.match(got.refused ?? '', c.refused);
      else if (c.lines) assert.equal(got.refused, undefined);
    });
});

describe('fieldsFromLayout reads the lines of a text layer table', () => {
  it('stores the checked lines with pdf_text provenance, those of a scan less sure', () => {
    const runs: [number, number, string][] = [
      [50, 50, 'Rechnung'],
      [50, 70, 'Rechnungsnummer: RE-2026-7'],
      [50, 200, 'Bezeichnung'],
      [300, 200, 'Menge'],
      [380, 200, 'Einzelpreis'],
      [480, 200, 'Gesamt'],
      [50, 220, 'Beratung'],
      [300, 220, '2'],
      [380, 220, '100,00'],
      [480, 220, '200,00'],
      [50, 240, 'Reisekosten'],
      [300, 240, '1'],
      [380, 240, '80,00'],
      [480, 240, '80,00'],
      [380, 270, 'Summe netto'],
      [480, 270, '280,00'],
    ];
    const text = fieldsFromLayout([page(runs)], 'pdf_text');
    assert.deepEqual(text.fields.line_items, [
      { title: 'Beratung', quantity: '2', unit_price: '100.00', net_total: '200.00' },
      { title: 'Reisekosten', quantity: '1', unit_price: '80.00', net_total: '80.00' },
    ]);
    assert.equal(text.provenance.line_items?.source, 'pdf_text');
    const bad = fieldsFromLayout(
      [page(runs.map(([x, y, t]) => [x, y, t === '80,00' && x === 480 ? '85,00' : t]))],
      'pdf_text',
    );
    assert.equal(bad.fields.line_items, undefined);
    assert.ok(bad.warnings.some((w) => w.code === 'line_items_unchecked'));
    // A scan's lines must also add up to the total read (test/unit/line-items-ocr.test.ts).
    const ocr = fieldsFromLayout([page(runs)], 'ocr');
    assert.equal(ocr.fields.line_items?.length, 2);
    assert.equal(ocr.provenance.line_items?.confidence, 0.7);
  });
});

describe('fieldsFromLayout reads a Dutch invoice', () => {
  it('number, date written with dashes, total and VAT by their Dutch labels', () => {
    const got = fieldsFromLayout(
      [
        page([
          [50, 50, 'Bakkerij Jansen B.V.'],
          [50, 100, 'Factuurnummer: 2015-0042'],
          [50, 115, 'Factuurdatum: 20-10-2015'],
          [50, 130, 'Vervaldatum: 19-11-2015'],
          [300, 300, 'Subtotaal'],
          [450, 300, '100,00'],
          [300, 315, 'BTW 21%'],
          [450, 315, '21,00'],
          [300, 330, 'Totaal'],
          [450, 330, '€ 121,00'],
        ]),
      ],
      'pdf_text',
    );
    assert.equal(got.fields.invoice_number, '2015-0042');
    assert.equal(got.fields.date, '2015-10-20');
    assert.equal(got.fields.due_date, '2015-11-19');
    assert.equal(got.fields.gross_total, '121.00');
    assert.equal(got.fields.net_total, '100.00');
    assert.equal(got.fields.tax_total, '21.00');
  });
});
