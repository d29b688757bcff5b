import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PageWords } from '../../src/modules/incoming-invoices/extraction.model.js';
import { fieldsFromLayout } from '../../src/modules/incoming-invoices/layout/fields.js';

/** OCR words as tesseract gives them: pixels at 300 dpi, ink boxes, a confidence each. */
function scanPage(runs: [number, number, string][]): PageWords {
  const words = runs.flatMap(([x, y, text]) =>
    [...text.matchAll(/\S+/g)].map((m) => ({
      text: m[0],
      x: x + m.index * 21,
      y,
      w: m[0].length * 21,
      h: 31,
      confidence: 0.91,
    })),
  );
  return { page: 1, width: 2480, height: 3508, words };
}

const HEAD: [number, number, string][] = [
  [200, 200, 'Nordlicht Druck GmbH'],
  [200, 400, 'Rechnung'],
  [200, 480, 'Rechnungsnummer: RE-2026-0815'],
  [200, 540, 'Rechnungsdatum: 14.03.2026'],
  [200, 800, 'Pos.'],
  [330, 800, 'Bezeichnung'],
  [1200, 800, 'Menge'],
  [1500, 800, 'Einzelpreis'],
  [2000, 800, 'Gesamt'],
];
const row = (y: number, pos: string, title: string, qty: string, price: string, total: string) =>
  [
    [200, y, pos],
    [330, y, title],
    [1200, y, qty],
    [1500, y, price],
    [2000, y, total],
  ] as [number, number, string][];
const TOTALS: [number, number, string][] = [
  [1500, 1300, 'Nettobetrag'],
  [2000, 1300, '1.000,00'],
  [1500, 1360, 'USt. 19 %'],
  [2000, 1360, '190,00'],
  [1500, 1420, 'Gesamtbetrag'],
  [2000, 1420, '1.190,00'],
];

describe('line items from OCR words', () => {
  it('reads a table whose rows and sum check, at a scan confidence', () => {
    const got = fieldsFromLayout(
      [
        scanPage([
          ...HEAD,
          ...row(900, '1', 'Flyer A5, 4/4-farbig', '2.000', '0,35', '700,00'),
          ...row(980, '2', 'Plakate A1', '12', '25,00', '300,00'),
          ...TOTALS,
        ]),
      ],
      'ocr',
    );
    assert.equal(got.fields.net_total, '1000.00');
    assert.deepEqual(got.fields.line_items, [
      { title: 'Flyer A5, 4/4-farbig', quantity: '2000', unit_price: '0.35', net_total: '700.00' },
      { title: 'Plakate A1', quantity: '12', unit_price: '25.00', net_total: '300.00' },
    ]);
    assert.deepEqual(got.provenance.line_items, { source: 'ocr', confidence: 0.7 });
  });

  it('reports no line when a row does not multiply out', () => {
    const got = fieldsFromLayout(
      [
        scanPage([
          ...HEAD,
          // "0,35" misread as "0,36": 2000 × 0.36 is 720.
          ...row(900, '1', 'Flyer A5', '2.000', '0,36', '700,00'),
          ...row(980, '2', 'Plakate A1', '12', '25,00', '300,00'),
          ...TOTALS,
        ]),
      ],
      'ocr',
    );
    assert.equal(got.fields.line_items, undefined);
    const w = got.warnings.find((x) => x.code === 'line_items_unchecked');
    assert.match(w?.message ?? '', /0\.36 is not 700/);
  });

  it('reports no line when a row was misread into words and the sum falls short', () => {
    const got = fieldsFromLayout(
      [
        scanPage([
          ...HEAD,
          ...row(900, '1', 'Flyer A5', '2.000', '0,35', '700,00'),
          // Every digit of the second row misread: it would pass as the first row's description.
          ...row(980, 'Z', 'Plakate A1', 'l2', 'Z5,OO', 'E0O,OO'),
          ...TOTALS,
        ]),
      ],
      'ocr',
    );
    assert.equal(got.fields.line_items, undefined);
    const w = got.warnings.find((x) => x.code === 'line_items_unchecked');
    assert.match(w?.message ?? '', /add up to 700\.00, not to the total/);
  });

  it('reports no line from a scan without a total to check them against', () => {
    const got = fieldsFromLayout(
      [scanPage([...HEAD, ...row(900, '1', 'Flyer A5', '2.000', '0,35', '700,00')])],
      'ocr',
    );
    assert.equal(got.fields.line_items, undefined);
    assert.ok(got.warnings.some((x) => x.code === 'line_items_unchecked'));
  });
});
