import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_LEVELS,
  fill,
  letterAmounts,
  nextLevel,
  type PastLetter,
  unknownPlaceholder,
} from '../../src/modules/dunning/dunning.domain.js';
import {
  type BaseRate,
  basisPoints,
  defaultInterest,
  mergeBaseRates,
  NoBaseRate,
  percentText,
  type Reduction,
  SHIPPED_BASE_RATES,
} from '../../src/modules/dunning/interest.domain.js';

// Every expected value below was worked out by hand: a period's interest is
// open (cents) × rate (hundredths of a percent) × days / 3,650,000 cents (365 days × 100 × 100);
// the periods' exact amounts are added and the sum is rounded half up to the cent once.

interface Case {
  name: string;
  amount: number;
  due: string;
  until: string;
  consumer?: boolean;
  reductions?: Reduction[];
  rates?: BaseRate[];
  /** [from, to, days, open cents, rate, cents of the period (rounded for display)] */
  periods: [string, string, number, number, string, number][];
  cents: number;
}

const CASES: Case[] = [
  {
    // 100000 × 1262 × 15 = 1,893,000,000 → 518.630 ct; 100000 × 1237 × 15 → 508.356 ct
    name: 'business, base rate change on 1 July inside the period (3.62 % → 3.37 %)',
    amount: 100000,
    due: '2024-06-15',
    until: '2024-07-15',
    periods: [
      ['2024-06-16', '2024-06-30', 15, 100000, '12.62', 519],
      ['2024-07-01', '2024-07-15', 15, 100000, '12.37', 508],
    ],
    cents: 1027, // 1026.986 ct
  },
  {
    // 100000 × 862 × 15 → 354.247 ct; 100000 × 837 × 15 → 343.973 ct
    name: 'the same for a consumer: base rate + 5 points',
    amount: 100000,
    due: '2024-06-15',
    until: '2024-07-15',
    consumer: true,
    periods: [
      ['2024-06-16', '2024-06-30', 15, 100000, '8.62', 354],
      ['2024-07-01', '2024-07-15', 15, 100000, '8.37', 344],
    ],
    cents: 698, // 698.219 ct
  },
  {
    // 28 Feb, 29 Feb, 1–5 March: 7 days, still / 365: 500000 × 1262 × 7 → 1210.137 ct
    name: 'leap year: 29 February is a day of interest, the divisor stays 365',
    amount: 500000,
    due: '2024-02-27',
    until: '2024-03-05',
    periods: [['2024-02-28', '2024-03-05', 7, 500000, '12.62', 1210]],
    cents: 1210,
  },
  {
    // 28 Feb, 1–5 March: 6 days at 1.62 + 9: 500000 × 1062 × 6 → 872.877 ct
    name: 'the same dates in a common year: one day fewer',
    amount: 500000,
    due: '2023-02-27',
    until: '2023-03-05',
    periods: [['2023-02-28', '2023-03-05', 6, 500000, '10.62', 873]],
    cents: 873,
  },
  {
    // 3000.00 due 31 May 2025; 500 paid 10 June, 700 on 1 July, 300 on 15 August; until 31 Aug.
    // 1–10 Jun   10 d × 300000 × 1127 = 3,381,000,000 →  926.301 ct
    // 11–30 Jun  20 d × 250000 × 1127 = 5,635,000,000 → 1543.836 ct
    // 1 Jul       1 d × 250000 × 1027 =   256,750,000 →   70.342 ct (paid that day: still owed)
    // 2 Jul–15 Aug 45 d × 180000 × 1027 = 8,318,700,000 → 2279.096 ct
    // 16–31 Aug  16 d × 150000 × 1027 = 2,464,800,000 →  675.288 ct
    // sum 20,056,250,000 → 5494.863 ct → 54.95 (the rounded periods add up to 54.94)
    name: 'partial payments on three days, a base rate change between them',
    amount: 300000,
    due: '2025-05-31',
    until: '2025-08-31',
    reductions: [
      { date: '2025-06-10', cents: 50000 },
      { date: '2025-07-01', cents: 70000 },
      { date: '2025-08-15', cents: 30000 },
    ],
    periods: [
      ['2025-06-01', '2025-06-10', 10, 300000, '11.27', 926],
      ['2025-06-11', '2025-06-30', 20, 250000, '11.27', 1544],
      ['2025-07-01', '2025-07-01', 1, 250000, '10.27', 70],
      ['2025-07-02', '2025-08-15', 45, 180000, '10.27', 2279],
      ['2025-08-16', '2025-08-31', 16, 150000, '10.27', 675],
    ],
    cents: 5495,
  },
  {
    // 181 days at 10.62 + 184 days at 12.12: 192,222,000,000 + 223,008,000,000 → 113761.644 ct
    name: 'a whole year, business, 10,000.00',
    amount: 1000000,
    due: '2022-12-31',
    until: '2023-12-31',
    periods: [
      ['2023-01-01', '2023-06-30', 181, 1000000, '10.62', 52664],
      ['2023-07-01', '2023-12-31', 184, 1000000, '12.12', 61098],
    ],
    cents: 113762,
  },
  {
    // -0.83 + 9 = 8.17 for 15 days, -0.88 + 9 = 8.12 for 14: 671.507 + 622.904 → 1294.411 ct
    name: 'negative base rates',
    amount: 200000,
    due: '2016-06-15',
    until: '2016-07-14',
    periods: [
      ['2016-06-16', '2016-06-30', 15, 200000, '8.17', 672],
      ['2016-07-01', '2016-07-14', 14, 200000, '8.12', 623],
    ],
    cents: 1294,
  },
  {
    // 1.27 on 1 July 2025 and again on 1 January 2026: one line, 61 days at 6.27 → 1047.863 ct
    name: 'an unchanged base rate on a new half-year continues the period',
    amount: 100000,
    due: '2025-12-01',
    until: '2026-01-31',
    consumer: true,
    periods: [['2025-12-02', '2026-01-31', 61, 100000, '6.27', 1048]],
    cents: 1048,
  },
  {
    // 1825 × 1000 × 1 = 1,825,000 → exactly half a cent: half up gives 1 (half-even would give 0)
    name: 'exactly half a cent rounds up',
    amount: 1825,
    due: '2020-03-01',
    until: '2020-03-02',
    consumer: true,
    rates: [{ valid_from: '2020-01-01', rate: '5' }],
    periods: [['2020-03-02', '2020-03-02', 1, 1825, '10', 1]],
    cents: 1,
  },
  {
    // 0.4 ct + 0.44 ct: each period rounds to 0, their sum 0.84 ct to 1
    name: 'rounded once, not per period',
    amount: 1460,
    due: '2020-06-29',
    until: '2020-07-01',
    consumer: true,
    rates: [
      { valid_from: '2020-01-01', rate: '5' },
      { valid_from: '2020-07-01', rate: '6' },
    ],
    periods: [
      ['2020-06-30', '2020-06-30', 1, 1460, '10', 0],
      ['2020-07-01', '2020-07-01', 1, 1460, '11', 0],
    ],
    cents: 1,
  },
  {
    name: 'a letter dated on the due date: no interest yet',
    amount: 100000,
    due: '2024-06-15',
    until: '2024-06-15',
    periods: [],
    cents: 0,
  },
  {
    name: 'paid in full on the due date: nothing open, no interest',
    amount: 100000,
    due: '2024-06-15',
    until: '2024-07-15',
    reductions: [{ date: '2024-06-15', cents: 100000 }],
    periods: [],
    cents: 0,
  },
];

describe('dunning: statutory default interest (§ 288 BGB), to the cent', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const result = defaultInterest({
        amountCents: c.amount,
        reductions: c.reductions ?? [],
        dueDate: c.due,
        until: c.until,
        consumer: c.consumer ?? false,
        baseRates: c.rates ?? SHIPPED_BASE_RATES,
      });
      assert.deepEqual(
        result.periods.map((p) => [p.from, p.to, p.days, p.open_cents, p.rate, p.cents]),
        c.periods,
      );
      assert.equal(result.cents, c.cents);
    });
  }

  it('shows each period’s exact amount with six decimals', () => {
    const r = defaultInterest({
      amountCents: 100000,
      reductions: [],
      dueDate: '2024-06-15',
      until: '2024-07-15',
      consumer: false,
      baseRates: SHIPPED_BASE_RATES,
    });
    assert.deepEqual(
      r.periods.map((p) => [p.base_rate, p.exact]),
      [
        ['3.62', '5.186301'],
        ['3.37', '5.083561'],
      ],
    );
  });

  it('refuses a day that has no base rate', () => {
    assert.throws(
      () =>
        defaultInterest({
          amountCents: 100,
          reductions: [],
          dueDate: '2001-12-30',
          until: '2002-01-02',
          consumer: false,
          baseRates: SHIPPED_BASE_RATES,
        }),
      NoBaseRate,
    );
  });
});

describe('dunning: the base-rate table', () => {
  it('ships the published values, one per half-year from 2002 on', () => {
    const byDate = new Map(SHIPPED_BASE_RATES.map((r) => [r.valid_from, r.rate]));
    assert.equal(byDate.get('2002-01-01'), '2.57');
    assert.equal(byDate.get('2009-07-01'), '0.12');
    assert.equal(byDate.get('2016-07-01'), '-0.88');
    assert.equal(byDate.get('2023-01-01'), '1.62');
    assert.equal(byDate.get('2023-07-01'), '3.12');
    assert.equal(byDate.get('2024-01-01'), '3.62');
    assert.equal(byDate.get('2024-07-01'), '3.37');
    assert.equal(byDate.get('2025-01-01'), '2.27');
    assert.equal(byDate.get('2025-07-01'), '1.27');
    for (const r of SHIPPED_BASE_RATES) assert.match(r.valid_from, /^\d{4}-(01|07)-01$/);
    assert.equal(SHIPPED_BASE_RATES.length, (2026 - 2002) * 2 + 1);
  });

  it('an account’s own entries extend the table and win on their date', () => {
    const merged = mergeBaseRates([
      { valid_from: '2026-07-01', rate: '1.5' },
      { valid_from: '2025-07-01', rate: '1.3' },
    ]);
    assert.equal(merged.at(-1)!.valid_from, '2026-07-01');
    assert.equal(merged.find((r) => r.valid_from === '2025-07-01')!.rate, '1.3');
    assert.equal(merged.length, SHIPPED_BASE_RATES.length + 1);
  });

  it('percentages as hundredths and back', () => {
    for (const [text, bp] of [
      ['3.62', 362],
      ['-0.88', -88],
      ['12', 1200],
      ['12.3', 1230],
      ['0', 0],
    ] as const) {
      assert.equal(basisPoints(text), bp);
      assert.equal(percentText(bp), text);
    }
    assert.equal(basisPoints('1.234'), undefined);
    assert.equal(basisPoints('1e2'), undefined);
  });
});

describe('dunning: levels and letters', () => {
  const L = DEFAULT_LEVELS; // 7 days after due, then 14 and 14 after the previous letter
  const letter = (level: number, date: string, flat_fee = 0, status: PastLetter['status'] = 'open') => ({
    level,
    date,
    flat_fee,
    status,
  });

  it('each level on its day and not before', () => {
    const due = '2026-03-10';
    assert.equal(nextLevel(L, due, [], '2026-03-16'), null);
    assert.equal(nextLevel(L, due, [], '2026-03-17'), 1);
    const one = [letter(1, '2026-03-17')];
    assert.equal(nextLevel(L, due, one, '2026-03-30'), null);
    assert.equal(nextLevel(L, due, one, '2026-03-31'), 2);
    const two = [...one, letter(2, '2026-04-02')];
    assert.equal(nextLevel(L, due, two, '2026-04-15'), null);
    assert.equal(nextLevel(L, due, two, '2026-04-16'), 3);
    assert.equal(nextLevel(L, due, [...two, letter(3, '2026-04-16')], '2027-01-01'), null);
  });

  it('one level a run, however late; a cancelled level is not made again', () => {
    assert.equal(nextLevel(L, '2020-01-01', [], '2026-01-01'), 1);
    assert.equal(nextLevel(L, '2020-01-01', [letter(1, '2026-01-01', 0, 'cancelled')], '2026-01-15'), 2);
  });

  it('a level 0 days after the due date waits for the day after it', () => {
    const zero = [{ ...L[0]!, days_after_due: 0 }];
    assert.equal(nextLevel(zero, '2026-03-10', [], '2026-03-10'), null);
    assert.equal(nextLevel(zero, '2026-03-10', [], '2026-03-11'), 1);
  });

  const input = {
    level: L[1]!,
    date: '2024-07-15',
    dueDate: '2024-06-15',
    amountCents: 100000,
    reductions: [] as Reduction[],
    consumer: false,
    currency: 'EUR',
    letters: [letter(1, '2024-06-22')],
    baseRates: SHIPPED_BASE_RATES,
  };

  it('a letter claims the open amount, the fee, the lump sum and the interest', () => {
    const a = letterAmounts(input);
    assert.deepEqual(
      [a.open_amount, a.fee, a.flat_fee, a.interest, a.total_due],
      [100000, 500, 4000, 1027, 100000 + 500 + 4000 + 1027],
    );
    assert.equal(a.interest_breakdown.length, 2);
  });

  it('the lump sum once per invoice, only for businesses and euros', () => {
    assert.equal(letterAmounts({ ...input, letters: [letter(1, '2024-06-22', 4000)] }).flat_fee, 0);
    assert.equal(
      letterAmounts({ ...input, letters: [letter(1, '2024-06-22', 4000, 'cancelled')] }).flat_fee,
      4000,
    );
    assert.equal(letterAmounts({ ...input, consumer: true }).flat_fee, 0);
    assert.equal(letterAmounts({ ...input, currency: 'USD' }).flat_fee, 0);
  });

  it('payments up to the letter’s date lower the open amount', () => {
    const a = letterAmounts({ ...input, reductions: [{ date: '2024-07-15', cents: 40000 }] });
    assert.equal(a.open_amount, 60000);
    // The payment on the letter's day still bears that day's interest.
    assert.equal(a.interest, 1027);
  });

  it('placeholders', () => {
    assert.equal(unknownPlaceholder('{invoice_number} {total_due}'), undefined);
    assert.equal(unknownPlaceholder('{invoice_numbr}'), 'invoice_numbr');
    assert.equal(fill('Rechnung {invoice_number}: {x}', { invoice_number: 'RE-1' }), 'Rechnung RE-1: {x}');
  });
});
