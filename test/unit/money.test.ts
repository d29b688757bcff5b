import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Decimal } from 'decimal.js';
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

describe('money: the integer fast paths give what decimal.js gives', () => {
  // The reference: the formulas on decimal.js alone, as money.ts computed them before.
  const D = Decimal.clone({ precision: 50, rounding: Decimal.ROUND_HALF_UP });
  const round = (d: Decimal) => d.times(100).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber() || 0;
  const refNet = (q: string, p: number, disc: string | null) => {
    let net = new D(q).times(p).div(100);
    if (disc && !new D(disc).isZero()) net = net.times(new D(100).minus(disc)).div(100);
    return round(net);
  };
  const refTax = (net: number, rate: string) => round(new D(net).times(rate).div(10000));
  const refExact = (v: number, places: number) => {
    const d = new D(String(v));
    return d.decimalPlaces() > places ? undefined : d.isZero() ? '0' : d.toString();
  };
  const refCents = (v: number) => {
    const d = new D(String(v));
    if (d.decimalPlaces() > 2) return undefined;
    const c = d.times(100);
    return c.abs().greaterThan(Number.MAX_SAFE_INTEGER) ? undefined : c.toNumber() || 0;
  };

  // A fixed pseudo-random sequence: the same cases on every run.
  let seed = 42;
  const rnd = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const decimalText = (maxInt: number, places: number) => {
    const scale = Math.floor(rnd() * (places + 1));
    const units = Math.floor(rnd() * maxInt * 10 ** scale) * (rnd() < 0.2 ? -1 : 1);
    return new D(units).div(10 ** scale).toString();
  };
  const magnitudes = [1, 10, 1000, 1e6, 1e9];

  it('line nets: 20,000 quantities × prices × discounts, half-cent edges and the largest values included', () => {
    const cases: [string, number, string | null][] = [
      ['0.5', 1, null],
      ['-0.5', 1, null],
      ['0.0005', 1000, null],
      ['1000000000', 100_000_000_000, null],
      ['-999999999.9999', 99_999_999_999, '0.01'],
      ['1.005', 1, '50'],
      ['3', 333, '33.33'],
      ['0.0001', 1, '99.99'],
    ];
    for (let i = 0; i < 20_000; i++) {
      const q = decimalText(magnitudes[i % 5]!, 4);
      const price = Math.floor(rnd() * magnitudes[(i >> 3) % 5]! * 100) * (rnd() < 0.1 ? -1 : 1);
      const disc = rnd() < 0.5 ? null : decimalText(100, 2).replace('-', '');
      cases.push([q, price, disc]);
    }
    for (const [q, p, disc] of cases)
      assert.equal(lineNetCents(q, p, disc), refNet(q, p, disc), `${q} × ${p}c − ${disc} %`);
  });

  it('taxes: 20,000 nets × rates, up to the largest document net', () => {
    const cases: [number, string][] = [
      [50, '1'],
      [-50, '1'],
      [1_000_000_000_000, '99.99'],
      [-1_000_000_000_000, '19'],
      [1, '0.000001'],
    ];
    for (let i = 0; i < 20_000; i++) {
      const net = Math.floor(rnd() * magnitudes[i % 5]! * 1000) * (rnd() < 0.2 ? -1 : 1);
      cases.push([net, decimalText(100, 2).replace('-', '')]);
    }
    for (const [net, rate] of cases)
      assert.equal(taxCents(net, rate), refTax(net, rate), `${net}c at ${rate} %`);
  });

  it('numbers as sent: exact decimals and cents, with exponents, -0 and binary fractions included', () => {
    const values = [
      0,
      -0,
      1,
      -1,
      0.1,
      0.3,
      0.1 + 0.2,
      1.005,
      95.5,
      1e-7,
      0.000001,
      1e21,
      1e20,
      123456789012345,
      1234567890123456,
      99999999999.99,
      -2.25,
      33.33,
      1.13,
      5e-324,
    ];
    for (let i = 0; i < 20_000; i++) values.push(Number(decimalText(magnitudes[i % 5]!, 6)));
    for (const v of values) {
      for (const places of [0, 2, 4])
        assert.equal(exactDecimal(v, places), refExact(v, places), `${v} with ${places}`);
      assert.equal(toCents(v), refCents(v), `${v} in cents`);
    }
  });

  it('document totals: rates as stored texts ("19", "7.0", "05.50") sum, sort and spell as decimal.js', () => {
    const t = documentTotals([
      { net: 1000, tax_rate: '7.0' },
      { net: 1000, tax_rate: '19' },
      { net: 500, tax_rate: '7' },
      { net: 999, tax_rate: '05.50' },
      { net: 1, tax_rate: '0.0000001' },
      { net: 1, tax_rate: '1e-7' },
    ]);
    assert.deepEqual(
      t.taxes.map((x) => [x.rate, x.net, x.tax]),
      [
        ['1e-7', 2, 0],
        ['5.5', 999, 55],
        ['7', 1500, 105],
        ['19', 1000, 190],
      ],
    );
  });
});
