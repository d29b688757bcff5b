import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  allocate,
  centsToString,
  documentTotals,
  exactDecimal,
  fromCents,
  lineNetCents,
  subtractTotals,
  sumTotals,
  taxCents,
  toCents,
} from '../../src/shared/money.js';

describe('money: line net = quantity × unit price × (1 − discount), rounded half away from zero', () => {
  const cases: [string, number, string | null, number, string][] = [
    ['1', 3333, null, 3333, 'plain'],
    ['1.5', 3333, null, 5000, '49.995 rounds up to 50.00'],
    ['1.5', 3333, '10', 4500, '44.9955 with 10 % off'],
    ['0.3333', 100, null, 33, 'four-decimal quantity'],
    ['0.5', 1, null, 1, 'half a cent rounds away from zero'],
    ['-0.5', 1, null, -1, 'negative half a cent rounds away from zero too'],
    ['-1', 5000, null, -5000, 'negative quantity'],
    ['2', -1234, null, -2468, 'negative unit price (credit line)'],
    ['3', 333, '33.33', 666, '9.99 × 0.6667 = 6.660333'],
    ['1', 9999, '100', 0, 'fully discounted'],
    ['0.1', 3, null, 0, '0.003 rounds down'],
    ['123456.7891', 9999999, null, 1234567767543, 'large values stay exact'],
  ];
  for (const [q, price, discount, expected, name] of cases) {
    it(`${name}: ${q} × ${price}c${discount ? ` − ${discount} %` : ''} = ${expected}c`, () => {
      assert.equal(lineNetCents(q, price, discount), expected);
    });
  }
});

describe('money: tax per rate on the net sum', () => {
  const cases: [number, string, number][] = [
    [9999, '19', 1900],
    [3333, '19', 633],
    [-9999, '19', -1900],
    [-105, '19', -20],
    [10000, '7', 700],
    [1234, '5.5', 68],
    [1, '50', 1],
    [10000, '0', 0],
  ];
  for (const [net, rate, tax] of cases) {
    it(`${net}c at ${rate} % = ${tax}c`, () => assert.equal(taxCents(net, rate), tax));
  }
});

describe('money: document totals', () => {
  const cases: {
    name: string;
    lines: { net: number; tax_rate: string }[];
    net: number;
    tax: number;
    taxes: [string, number, number][];
  }[] = [
    {
      name: 'three lines of 33.33 at 19 %: tax on the sum (19.00), not per line (18.99)',
      lines: [3333, 3333, 3333].map((net) => ({ net, tax_rate: '19' })),
      net: 9999,
      tax: 1900,
      taxes: [['19', 9999, 1900]],
    },
    {
      name: 'mixed 7 % and 19 %, ascending by rate',
      lines: [
        { net: 10000, tax_rate: '19' },
        { net: 5000, tax_rate: '7' },
        { net: 1999, tax_rate: '19' },
      ],
      net: 16999,
      tax: 2280 + 350,
      taxes: [
        ['7', 5000, 350],
        ['19', 11999, 2280],
      ],
    },
    {
      name: 'negative credit lines',
      lines: [
        { net: -10000, tax_rate: '19' },
        { net: -3333, tax_rate: '19' },
      ],
      net: -13333,
      tax: -2533,
      taxes: [['19', -13333, -2533]],
    },
    {
      name: 'rates written differently are one rate',
      lines: [
        { net: 100, tax_rate: '19' },
        { net: 100, tax_rate: '19.00' },
      ],
      net: 200,
      tax: 38,
      taxes: [['19', 200, 38]],
    },
    { name: 'no lines', lines: [], net: 0, tax: 0, taxes: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const t = documentTotals(c.lines);
      assert.equal(t.net, c.net);
      assert.equal(t.tax, c.tax);
      assert.equal(t.gross, c.net + c.tax);
      assert.deepEqual(
        t.taxes.map((x) => [x.rate, x.net, x.tax]),
        c.taxes,
      );
    });
  }

  it('subtracts and sums rate by rate on the rounded amounts', () => {
    const plan = documentTotals([
      { net: 100000, tax_rate: '19' },
      { net: 20000, tax_rate: '7' },
    ]);
    const dep = documentTotals([{ net: 33333, tax_rate: '19' }]);
    const rest = subtractTotals(plan, sumTotals([dep, dep]));
    assert.deepEqual(
      rest.taxes.map((x) => [x.rate, x.net, x.tax]),
      [
        ['7', 20000, 1400],
        ['19', 100000 - 66666, 19000 - 2 * 6333],
      ],
    );
    assert.equal(rest.gross, plan.gross - 2 * dep.gross);
    assert.deepEqual(subtractTotals(plan, plan).taxes, []);
  });
});

describe('money: exact parsing of JSON numbers', () => {
  const cents: [number | string, number | undefined][] = [
    [33.33, 3333],
    [19.99, 1999],
    [1.13, 113],
    [0.07, 7],
    [-0.01, -1],
    [1234567.89, 123456789],
    [0, 0],
    [-0, 0],
    [0.1 + 0.2, undefined],
    [1.005, undefined],
    [1e-7, undefined],
    ['12.50', 1250],
    [Number.NaN, undefined],
  ];
  for (const [input, expected] of cents) {
    it(`toCents(${String(input)}) = ${expected}`, () => assert.equal(toCents(input), expected));
  }
  const decimals: [number, number, string | undefined][] = [
    [1.5, 4, '1.5'],
    [0.1234, 4, '0.1234'],
    [0.12345, 4, undefined],
    [19, 2, '19'],
    [5.5, 2, '5.5'],
    [-2.25, 2, '-2.25'],
    [-0, 2, '0'],
  ];
  for (const [input, places, expected] of decimals) {
    it(`exactDecimal(${input}, ${places}) = ${expected}`, () =>
      assert.equal(exactDecimal(input, places), expected));
  }
  it('writes cents back as numbers and strings with two decimals', () => {
    assert.equal(fromCents(3333), 33.33);
    assert.equal(fromCents(-1), -0.01);
    assert.ok(Object.is(fromCents(-0), 0));
    assert.equal(JSON.stringify(fromCents(11899)), '118.99');
    assert.equal(centsToString(123450), '1234.50');
    assert.equal(centsToString(-5), '-0.05');
  });
});

describe('money: allocate splits exactly', () => {
  const cases: [number, number[], number[]][] = [
    [1000, [1, 1, 1], [334, 333, 333]],
    [-1000, [2, 1], [-667, -333]],
    [1, [0, 0], [1, 0]],
    [10000, [100000, 20000], [8333, 1667]],
    [5, [1], [5]],
  ];
  for (const [total, weights, expected] of cases) {
    it(`${total} over ${weights.join(':')} = ${expected.join(' + ')}`, () => {
      const parts = allocate(total, weights);
      assert.deepEqual(parts, expected);
      assert.equal(
        parts.reduce((s, x) => s + x, 0),
        total,
      );
    });
  }
});
