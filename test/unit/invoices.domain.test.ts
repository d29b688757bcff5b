import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { accountProfile, numberFormatFor } from '../../src/modules/account/profile.public.js';
import {
  addDays,
  addMonths,
  bookingRefusal,
  counterYear,
  deducted,
  deleteRefusal,
  editRefusal,
  effectiveDueDate,
  exceedsPlan,
  finalTotals,
  formatInvoiceNumber,
  lumpSumLines,
  numberFormatError,
  numberKind,
  paymentState,
  planSchedule,
} from '../../src/modules/outgoing-invoices/invoices.domain.js';
import { documentTotals } from '../../src/shared/money.js';

describe('dates: calendar months clamp to the month end', () => {
  const cases: [string, number, string][] = [
    ['2026-01-31', 1, '2026-02-28'],
    ['2028-01-31', 1, '2028-02-29'],
    ['2026-01-31', 2, '2026-03-31'],
    ['2026-03-31', -1, '2026-02-28'],
    ['2026-12-15', 1, '2027-01-15'],
    ['2026-01-15', -1, '2025-12-15'],
    ['2028-02-29', 12, '2029-02-28'],
    ['2028-02-29', 48, '2032-02-29'],
    ['2026-08-31', 6, '2027-02-28'],
  ];
  for (const [date, months, expected] of cases) {
    it(`${date} + ${months} months = ${expected}`, () => assert.equal(addMonths(date, months), expected));
  }
  it('stops at the first and last day both databases store (years 0001–9999)', () => {
    assert.equal(addDays('9999-01-01', 3650), '9999-12-31');
    assert.equal(addDays('0001-01-05', -10), '0001-01-01');
    assert.equal(addDays('0050-02-28', 1), '0050-03-01', 'years below 100 are not read as 19xx');
    assert.equal(addMonths('9999-06-30', 12), '9999-12-31');
    assert.equal(
      effectiveDueDate({ date: '9999-12-01', due_date: null, payment_term_days: 3650 }),
      '9999-12-31',
    );
  });
  it('a plan at the end of the range ends with it', () => {
    const periods = planSchedule('9999-01-31', '9999-12-31', 1);
    assert.equal(periods.length, 12);
    assert.deepEqual(periods.at(-1), { index: 11, start: '9999-12-31', end: '9999-12-31' });
    assert.deepEqual(planSchedule('9999-12-31', '9999-12-31', 12), [
      { index: 0, start: '9999-12-31', end: '9999-12-31' },
    ]);
    assert.deepEqual(planSchedule('9999-06-15', '9999-12-31', 3).at(-1), {
      index: 2,
      start: '9999-12-15',
      end: '9999-12-31',
    });
  });
  it('adds days across month and year ends', () => {
    assert.equal(addDays('2026-12-31', 1), '2027-01-01');
    assert.equal(addDays('2028-03-01', -1), '2028-02-29');
    assert.equal(addDays('2026-01-01', 14), '2026-01-15');
  });
});

describe('recurring plan schedules: anchored on the plan start, no drift', () => {
  const cases: { name: string; start: string; end: string; months: number; periods: [string, string][] }[] = [
    {
      name: 'monthly from 31 January',
      start: '2026-01-31',
      end: '2026-05-31',
      months: 1,
      periods: [
        ['2026-01-31', '2026-02-27'],
        ['2026-02-28', '2026-03-30'],
        ['2026-03-31', '2026-04-29'],
        ['2026-04-30', '2026-05-30'],
        ['2026-05-31', '2026-06-29'],
      ],
    },
    {
      name: 'monthly over a leap February',
      start: '2028-01-30',
      end: '2028-03-29',
      months: 1,
      periods: [
        ['2028-01-30', '2028-02-28'],
        ['2028-02-29', '2028-03-29'],
      ],
    },
    {
      name: 'quarterly from 30 November, a period ending in a leap February',
      start: '2026-11-30',
      end: '2027-11-30',
      months: 3,
      periods: [
        ['2026-11-30', '2027-02-27'],
        ['2027-02-28', '2027-05-29'],
        ['2027-05-30', '2027-08-29'],
        ['2027-08-30', '2027-11-29'],
        ['2027-11-30', '2028-02-28'],
      ],
    },
    {
      name: 'half-yearly from the 1st: whole half years',
      start: '2026-01-01',
      end: '2026-12-31',
      months: 6,
      periods: [
        ['2026-01-01', '2026-06-30'],
        ['2026-07-01', '2026-12-31'],
      ],
    },
    {
      name: 'yearly from 29 February: back on the 29th in the next leap year',
      start: '2028-02-29',
      end: '2032-03-01',
      months: 12,
      periods: [
        ['2028-02-29', '2029-02-27'],
        ['2029-02-28', '2030-02-27'],
        ['2030-02-28', '2031-02-27'],
        ['2031-02-28', '2032-02-28'],
        ['2032-02-29', '2033-02-27'],
      ],
    },
    {
      name: 'a span shorter than one interval still has its first period',
      start: '2026-05-10',
      end: '2026-05-10',
      months: 1,
      periods: [['2026-05-10', '2026-06-09']],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const periods = planSchedule(c.start, c.end, c.months);
      assert.deepEqual(
        periods.map((p) => [p.start, p.end]),
        c.periods,
      );
      assert.deepEqual(
        periods.map((p) => p.index),
        c.periods.map((_, i) => i),
      );
      // The periods tile the span: each starts the day after the previous one ends.
      for (let i = 1; i < periods.length; i++)
        assert.equal(addDays(periods[i - 1]!.end, 1), periods[i]!.start);
    });
  }
  it('refuses absurdly long plans with a 422 on plan_end', () => {
    assert.throws(
      () => planSchedule('2000-01-01', '2099-12-31', 1),
      (e: any) => e.code === 'validation_failed' && e.errors[0].field === 'plan_end',
    );
  });
});

describe('numbering', () => {
  const formats: [string, number, number, string][] = [
    ['RE-{YYYY}-{NNNNN}', 2026, 42, 'RE-2026-00042'],
    ['GS-{YYYY}-{NNNNN}', 2026, 1, 'GS-2026-00001'],
    ['{YY}{NNN}', 2026, 7, '26007'],
    ['INV{N}', 2026, 12345, 'INV12345'],
    ['R{NN}', 2026, 123, 'R123'],
  ];
  for (const [format, year, seq, expected] of formats) {
    it(`${format} with ${year}/${seq} = ${expected}`, () =>
      assert.equal(formatInvoiceNumber(format, year, seq), expected));
  }
  const errors: [string, boolean][] = [
    ['RE-{YYYY}-{NNNNN}', false],
    ['{N}', false],
    ['RE-{YYYY}', true],
    ['{NN}-{NN}', true],
    ['RE-{MM}-{NNN}', true],
    ['', true],
  ];
  for (const [format, bad] of errors) {
    it(`format "${format}" is ${bad ? 'refused' : 'accepted'}`, () =>
      assert.equal(numberFormatError(format) !== null, bad));
  }
  it('counts per year only when the format shows the year', () => {
    assert.equal(counterYear('RE-{YYYY}-{NNN}', '2027-01-02'), 2027);
    assert.equal(counterYear('{YY}{NNN}', '2027-01-02'), 2027);
    assert.equal(counterYear('R{NNNNNN}', '2027-01-02'), 0);
  });
  it('credits have their own sequence, every other document uses the invoice one', () => {
    assert.deepEqual(['invoice', 'credit', 'deposit', 'partial', 'final'].map(numberKind), [
      'invoice',
      'credit',
      'invoice',
      'invoice',
      'invoice',
    ]);
  });
  it('reads formats and sender data from the account settings, with defaults', () => {
    const p = accountProfile({
      name: 'A',
      country_code: 'DE',
      settings: JSON.stringify({ credit_number_format: 'C{NNN}', iban: 'DE02', vat_id: ' ' }),
    });
    assert.equal(numberFormatFor(p, 'invoice'), 'RE-{YYYY}-{NNNNN}');
    assert.equal(numberFormatFor(p, 'credit'), 'C{NNN}');
    assert.equal(p.iban, 'DE02');
    assert.equal(p.vat_id, null);
    assert.equal(
      accountProfile({ name: 'B', country_code: null, settings: 'not json' }).number_formats.invoice,
      'RE-{YYYY}-{NNNNN}',
    );
    const broken = accountProfile({
      name: 'C',
      country_code: null,
      settings: '{"invoice_number_format":"X"}',
    });
    assert.throws(
      () => numberFormatFor(broken, 'invoice'),
      (e: any) => e.code === 'unprocessable',
    );
  });
});

describe('state rules', () => {
  const edits: [string, string, string | null][] = [
    ['invoice', 'open', null],
    ['credit', 'bookable', null],
    ['invoice', 'booked', 'invoice_booked'],
    ['credit', 'booked', 'invoice_booked'],
  ];
  for (const [type, status, code] of edits) {
    it(`PATCH of a ${status} ${type}: ${code ?? 'allowed'}`, () =>
      assert.equal(editRefusal({ type, status })?.code ?? null, code));
  }
  const deletes: [string, boolean, string | null][] = [
    ['open', false, null],
    ['bookable', false, null],
    ['booked', false, 'invoice_booked'],
    ['booked', true, null],
    ['open', true, null],
  ];
  for (const [status, force, code] of deletes) {
    it(`DELETE${force ? ' …/force' : ''} of a ${status} invoice: ${code ?? 'allowed'}`, () =>
      assert.equal(deleteRefusal({ type: 'invoice', status }, force)?.code ?? null, code));
  }
  const base = { type: 'invoice', status: 'open', client_id: 1, line_count: 1, gross: 100 };
  const bookings: [
    string,
    Partial<typeof base> & { unbooked_plan_invoices?: number },
    string | null,
    string[],
  ][] = [
    ['an open invoice', {}, null, []],
    ['a bookable credit below zero', { type: 'credit', status: 'bookable', gross: -100 }, null, []],
    ['a booked invoice', { status: 'booked' }, 'already_booked', []],
    ['a plan master', { type: 'recurring1' }, 'unprocessable', []],
    ['no client', { client_id: null as unknown as number }, 'validation_failed', ['client_id']],
    ['no line items', { line_count: 0 }, 'validation_failed', ['line_items']],
    [
      'no client and no lines',
      { client_id: null as unknown as number, line_count: 0 },
      'validation_failed',
      ['client_id', 'line_items'],
    ],
    ['a credit of zero or more', { type: 'credit', gross: 0 }, 'validation_failed', ['line_items']],
    ['an invoice below zero', { gross: -1 }, 'validation_failed', ['line_items']],
    ['an invoice of zero', { gross: 0 }, null, []],
    ['a final with open plan invoices', { type: 'final', unbooked_plan_invoices: 1 }, 'conflict', []],
    ['a final with all plan invoices booked', { type: 'final', unbooked_plan_invoices: 0 }, null, []],
  ];
  for (const [name, change, code, fields] of bookings) {
    it(`booking ${name}: ${code ?? 'allowed'}`, () => {
      const r = bookingRefusal({ ...base, ...change });
      assert.equal(r?.code ?? null, code);
      assert.deepEqual(
        (r?.errors ?? []).map((e) => e.field),
        fields,
      );
    });
  }
});

describe('partial plans', () => {
  const plan = documentTotals([
    { net: 100000, tax_rate: '19' },
    { net: 20000, tax_rate: '7' },
  ]);
  const doc = (net19: number, net7 = 0) =>
    documentTotals([
      { net: net19, tax_rate: '19' },
      { net: net7, tax_rate: '7' },
    ]);

  it('splits a lump sum over the plan’s rates in proportion to their net', () => {
    const lines = lumpSumLines('Deposit', 30000, plan);
    assert.deepEqual(
      lines.map((l) => [l.tax_rate, l.net_total]),
      [
        ['7', 5000],
        ['19', 25000],
      ],
    );
    assert.equal(lines[0]!.title, 'Deposit (7 % share)');
    const single = lumpSumLines('Deposit', 12345, documentTotals([{ net: 1, tax_rate: '19' }]));
    assert.deepEqual(
      single.map((l) => [l.title, l.quantity, l.unit_price, l.tax_rate, l.net_total]),
      [['Deposit', '1', 12345, '19', 12345]],
    );
  });

  it('deducts only booked deposits, partials and credits', () => {
    const siblings = [
      { type: 'deposit', status: 'booked', totals: doc(30000) },
      { type: 'partial', status: 'open', totals: doc(10000) },
      { type: 'credit', status: 'booked', totals: doc(-5000) },
      { type: 'final', status: 'open', totals: plan },
    ];
    const d = deducted(siblings);
    assert.deepEqual(
      d.map((x) => x.type),
      ['deposit', 'credit'],
    );
    const rest = finalTotals(plan, d);
    assert.equal(rest.net, 120000 - 25000);
    assert.deepEqual(
      rest.taxes.map((t) => [t.rate, t.net, t.tax]),
      [
        ['7', 20000, 1400],
        ['19', 75000, 19000 - 5700 + 950],
      ],
    );
  });

  const caps: [string, number[], boolean][] = [
    ['nothing invoiced', [], false],
    ['exactly the plan net', [100000, 20000], false],
    ['one cent more net', [100001, 20000], true],
    ['a credit makes room again', [100000, 20000, -5000, 5000], false],
  ];
  for (const [name, nets, exceeds] of caps) {
    it(`cap: ${name}`, () => {
      const invoiced = [];
      for (let i = 0; i < nets.length; i += 2) invoiced.push(doc(nets[i]!, nets[i + 1] ?? 0));
      assert.equal(exceedsPlan(plan, invoiced), exceeds);
    });
  }
});

describe('payment state and due dates', () => {
  const cases: [number, number, boolean, string, number][] = [
    [11900, 0, true, 'unpaid', 11900],
    [11900, 5000, true, 'partially_paid', 6900],
    [11900, 11900, true, 'paid', 0],
    [0, 0, true, 'paid', 0],
    [0, 0, false, 'unpaid', 0],
    [-5950, 0, true, 'unpaid', -5950],
    [-5950, -5950, true, 'paid', 0],
  ];
  for (const [gross, paid, booked, status, open] of cases) {
    it(`gross ${gross}, settled ${paid}${booked ? ', booked' : ''}: ${status}`, () => {
      assert.deepEqual(paymentState(gross, paid, booked), { paid, open, status });
    });
  }
  it('due date: explicit, else date + payment term, else none', () => {
    assert.equal(
      effectiveDueDate({ date: '2026-01-20', due_date: '2026-03-01', payment_term_days: 14 }),
      '2026-03-01',
    );
    assert.equal(
      effectiveDueDate({ date: '2026-01-20', due_date: null, payment_term_days: 14 }),
      '2026-02-03',
    );
    assert.equal(
      effectiveDueDate({ date: '2026-01-20', due_date: null, payment_term_days: 0 }),
      '2026-01-20',
    );
    assert.equal(effectiveDueDate({ date: null, due_date: null, payment_term_days: 14 }), null);
    assert.equal(effectiveDueDate({ date: '2026-01-20', due_date: null, payment_term_days: null }), null);
  });
});
