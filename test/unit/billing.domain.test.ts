import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  amountOf,
  billLines,
  hoursOf,
  type PricedEffort,
  type RateLevels,
  resolveRate,
  roundUpMinutes,
  taxTreatment,
} from '../../src/modules/billing/rates.domain.js';
import { projectFigures, type ReportEffort } from '../../src/modules/billing/report.domain.js';

const none: RateLevels = { effort: null, task: null, team: null, project: null, user: null, account: null };

describe('rate order', () => {
  const cases: [Partial<RateLevels>, ReturnType<typeof resolveRate>][] = [
    [{}, undefined],
    [{ account: 9000 }, { rate: 9000, source: 'account' }],
    [
      { user: 11000, account: 9000 },
      { rate: 11000, source: 'user' },
    ],
    [
      { project: 10000, user: 11000, account: 9000 },
      { rate: 10000, source: 'project' },
    ],
    [
      { team: 12000, project: 10000, user: 11000 },
      { rate: 12000, source: 'team' },
    ],
    [
      { task: 15000, team: 12000, project: 10000 },
      { rate: 15000, source: 'task' },
    ],
    [
      { effort: 13333, task: 15000, account: 9000 },
      { rate: 13333, source: 'effort' },
    ],
    // A rate of 0 is a rate (pro bono), not "unset".
    [
      { effort: 0, task: 15000 },
      { rate: 0, source: 'effort' },
    ],
    [
      { team: null, project: 0, user: 5 },
      { rate: 0, source: 'project' },
    ],
  ];
  for (const [levels, expected] of cases)
    it(`${JSON.stringify(levels)} → ${JSON.stringify(expected)}`, () =>
      assert.deepEqual(resolveRate({ ...none, ...levels }), expected));
});

describe('rounding up', () => {
  const cases: [number, number, number][] = [
    [0, 15, 0],
    [1, 1, 1],
    [1, 15, 15],
    [15, 15, 15],
    [16, 15, 30],
    [59, 60, 60],
    [61, 60, 120],
    [7, 6, 12],
  ];
  for (const [minutes, step, expected] of cases)
    it(`${minutes} min to ${step} → ${expected}`, () =>
      assert.equal(roundUpMinutes(minutes, step), expected));
  it('refuses a step below 1', () => assert.throws(() => roundUpMinutes(10, 0), RangeError));
});

describe('hours and amounts (half up to 4 decimals, then the line rule)', () => {
  const cases: [number, number, string, number][] = [
    // minutes, rate (cents/h), hours, amount (cents)
    [0, 10000, '0', 0],
    [60, 10000, '1', 10000],
    [90, 10000, '1.5', 15000],
    [1, 10000, '0.0167', 167],
    [20, 10000, '0.3333', 3333],
    [40, 10000, '0.6667', 6667],
    [7, 13333, '0.1167', 1556], // 0.1167 × 133.33 = 15.559611 → 15.56
    [45, 12345, '0.75', 9259], // 92.5875 → 92.59
    [50, 9999, '0.8333', 8332], // 83.321667 → 83.32
    [1, 1, '0.0167', 0], // 0.000167 → 0.00
    [30, 1, '0.5', 1], // 0.005 → 0.01 (half away from zero)
    [100_000 * 60, 15000, '100000', 1_500_000_000],
  ];
  for (const [minutes, rate, hours, cents] of cases)
    it(`${minutes} min at ${rate}: ${hours} h, ${cents} cents`, () => {
      assert.equal(hoursOf(minutes), hours);
      assert.equal(amountOf(minutes, rate), cents);
    });
  it('hours are exact for every minute count up to a year of minutes (BigInt check)', () => {
    for (let m = 0; m <= 525_600; m += 7) {
      const units = (2n * BigInt(m) * 10000n + 60n) / 120n;
      const text = `${units / 10000n}.${String(units % 10000n).padStart(4, '0')}`.replace(/\.?0+$/, '');
      assert.equal(hoursOf(m), text === '' ? '0' : text, `${m}`);
    }
  });
});

const effort = (over: Partial<PricedEffort>): PricedEffort => ({
  id: 1,
  project_id: 1,
  task_id: null,
  user_id: 1,
  date: '2026-10-01',
  description: null,
  minutes: 60,
  rate: 10000,
  source: 'project',
  ...over,
});

describe('invoice lines from efforts', () => {
  const efforts = [
    effort({ id: 1, task_id: 7, minutes: 10, date: '2026-10-02' }),
    effort({ id: 2, task_id: 7, minutes: 10, date: '2026-10-01' }),
    effort({ id: 3, task_id: 8, minutes: 20, user_id: 2 }),
    effort({ id: 4, task_id: 7, minutes: 25, rate: 15000, source: 'effort' }),
  ];
  const cases: [string, number, { keys: unknown[]; minutes: number[]; nets: number[] }][] = [
    ['effort', 1, { keys: [2, 3, 4, 1], minutes: [10, 20, 25, 10], nets: [1667, 3333, 6251, 1667] }],
    // Efforts of one line share one rate: task 7 gives two lines.
    ['task', 15, { keys: [7, 8, 7], minutes: [30, 30, 30], nets: [5000, 5000, 7500] }],
    ['user', 1, { keys: [1, 2, 1], minutes: [20, 20, 25], nets: [3333, 3333, 6251] }],
    [
      'day',
      60,
      {
        keys: ['2026-10-01', '2026-10-01', '2026-10-02'],
        minutes: [120, 60, 60],
        nets: [20000, 15000, 10000],
      },
    ],
    ['none', 1, { keys: [null, null], minutes: [40, 25], nets: [6667, 6251] }],
  ];
  for (const [by, rounding, expected] of cases)
    it(`group by ${by}, rounding ${rounding}`, () => {
      const lines = billLines(efforts, by as never, rounding);
      assert.deepEqual(
        lines.map((l) => l.key),
        expected.keys,
      );
      assert.deepEqual(
        lines.map((l) => l.minutes),
        expected.minutes,
      );
      assert.deepEqual(
        lines.map((l) => l.net),
        expected.nets,
      );
      assert.equal(
        lines.reduce((s, l) => s + l.efforts.length, 0),
        efforts.length,
        'every effort on exactly one line',
      );
    });
  it('lines never mix projects', () => {
    const lines = billLines([effort({ id: 1 }), effort({ id: 2, project_id: 2 })], 'none', 1);
    assert.equal(lines.length, 2);
  });
});

describe('tax treatment', () => {
  const taxes: [string | null, { country_code: string | null; vat_id: string | null }, unknown][] = [
    ['DE', { country_code: 'DE', vat_id: 'DE1' }, { tax_rate: '19', tax_exemption_category: null }],
    ['DE', { country_code: null, vat_id: null }, { tax_rate: '19', tax_exemption_category: null }],
    ['DE', { country_code: 'FR', vat_id: 'FR123' }, { tax_rate: '0', tax_exemption_category: 'AE' }],
    ['DE', { country_code: 'FR', vat_id: null }, { tax_rate: '19', tax_exemption_category: null }],
    ['DE', { country_code: 'US', vat_id: 'X' }, { tax_rate: '19', tax_exemption_category: null }],
    ['AT', { country_code: 'AT', vat_id: null }, { tax_rate: '20', tax_exemption_category: null }],
    ['XX', { country_code: 'DE', vat_id: null }, undefined],
    [null, { country_code: 'DE', vat_id: null }, undefined],
  ];
  for (const [seller, client, expected] of taxes)
    it(`tax from ${seller} to ${JSON.stringify(client)}`, () =>
      assert.deepEqual(taxTreatment(seller, client), expected));
});

describe('project figures', () => {
  it('totals are the sums of the parts, whichever way they are cut', () => {
    const efforts: ReportEffort[] = [];
    for (let i = 0; i < 50; i++)
      efforts.push({
        user_id: 1 + (i % 3),
        task_id: i % 4 === 0 ? null : 1 + (i % 2),
        date: `2026-${i % 2 ? '10' : '11'}-01`,
        minutes: 7 + i * 3,
        billable: i % 5 !== 0,
        rate: i % 7 === 0 ? undefined : { rate: 9000 + i, source: 'project' },
        cost_rate: i % 3 === 0 ? null : 4000,
        billed: i % 2 === 0 ? { minutes: 15 * Math.ceil((7 + i * 3) / 15), rate: 9000 } : null,
      });
    const f = projectFigures(efforts);
    for (const parts of [f.by_user, f.by_task, f.by_month]) {
      const sum = (k: 'billable_value' | 'billed_value' | 'uninvoiced_value' | 'cost') =>
        [...parts.values()].reduce((s, x) => s + x[k], 0);
      for (const k of ['billable_value', 'billed_value', 'uninvoiced_value', 'cost'] as const)
        assert.equal(sum(k), f.totals[k], k);
      assert.equal(
        [...parts.values()].reduce((s, x) => s + x.minutes.tracked, 0),
        f.totals.minutes.tracked,
      );
    }
    assert.equal(f.totals.minutes.billable + f.totals.minutes.non_billable, f.totals.minutes.tracked);
  });
});
