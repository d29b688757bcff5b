import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type LineItemInput, parseLineItems } from '../../src/modules/outgoing-invoices/line-items.js';
import { AppError } from '../../src/shared/errors.js';

const line = (quantity: number, unit_price: number, discount?: number): LineItemInput => ({
  title: 'x',
  quantity,
  unit_price,
  tax_rate: 19,
  ...(discount === undefined ? {} : { discount }),
});

/** The fields a refused list names, or [] when it is accepted. */
function refused(items: LineItemInput[]): string[] {
  try {
    parseLineItems(items);
    return [];
  } catch (err) {
    assert.ok(err instanceof AppError && err.code === 'validation_failed', String(err));
    return (err.errors ?? []).map((e) => e.field);
  }
}

describe('line amounts stay within the bounds that keep totals exact', () => {
  const cases: [string, LineItemInput[], string[]][] = [
    ['an ordinary line', [line(1.5, 100)], []],
    ['the largest line net, exactly', [line(1, 1e9)], []],
    ['the largest line net, negative', [line(-1, 1e9)], []],
    ['quantity 1e9 × unit price 1e9', [line(1e9, 1e9)], ['line_items.0.quantity']],
    ['one cent beyond the largest line net', [line(1, 1e9), line(1.0001, 1e9)], ['line_items.1.quantity']],
    ['a discount brings the net back within bounds', [line(2, 1e9, 50)], []],
    ['a negative line beyond the bound', [line(-2, 1e9)], ['line_items.0.quantity']],
    ['ten lines at the largest net: the document bound, exactly', Array(10).fill(line(1, 1e9)), []],
    [
      'eleven lines at the largest net: beyond the document bound',
      Array(11).fill(line(1, 1e9)),
      ['line_items'],
    ],
    [
      'credits count towards the document bound too',
      [...Array(6).fill(line(1, 1e9)), ...Array(5).fill(line(-1, 1e9))],
      ['line_items'],
    ],
  ];
  for (const [name, items, fields] of cases) {
    it(name, () => assert.deepEqual(refused(items), fields));
  }
});
