import { amountOf, type ResolvedRate } from './rates.domain.js';

/**
 * A project's profitability from its efforts, pure. Every effort is valued alone (a
 * one-effort line, rates.domain.ts), so each part (user, task, month) is a sum of effort
 * values and the totals are the sums of the parts, exactly, whichever way they are cut.
 */

export interface ReportEffort {
  user_id: number;
  task_id: number | null;
  date: string;
  minutes: number;
  /** Billable and not admin time. */
  billable: boolean;
  /** The sale rate now (undefined: no level of the rate order has one). */
  rate: ResolvedRate | undefined;
  cost_rate: number | null;
  /** What it was billed at, when it stands on an invoice. */
  billed: { minutes: number; rate: number } | null;
}

export interface Figures {
  minutes: { tracked: number; billable: number; non_billable: number; unrated: number };
  billable_value: number;
  billed_value: number;
  uninvoiced_value: number;
  cost: number;
}

export const zeroFigures = (): Figures => ({
  minutes: { tracked: 0, billable: 0, non_billable: 0, unrated: 0 },
  billable_value: 0,
  billed_value: 0,
  uninvoiced_value: 0,
  cost: 0,
});

/**
 * `amountOf` remembered per (minutes, rate): a report prices 100,000 efforts three ways each,
 * over a few rates and a few hundred distinct durations.
 */
export function memoAmount(): (minutes: number, rate: number) => number {
  const byRate = new Map<number, Map<number, number>>();
  return (minutes, rate) => {
    let m = byRate.get(rate);
    if (!m) {
      m = new Map();
      byRate.set(rate, m);
    }
    let v = m.get(minutes);
    if (v === undefined) {
      v = amountOf(minutes, rate);
      m.set(minutes, v);
    }
    return v;
  };
}

/** One effort's contribution, priced once and added to every part it belongs to. */
interface Priced {
  minutes: number;
  billable: boolean;
  unrated: boolean;
  value: number;
  billed: boolean;
  billedValue: number;
  cost: number;
}

function add(f: Figures, p: Priced): void {
  f.minutes.tracked += p.minutes;
  if (p.billable) {
    f.minutes.billable += p.minutes;
    if (p.unrated) f.minutes.unrated += p.minutes;
    f.billable_value += p.value;
    if (!p.billed) f.uninvoiced_value += p.value;
  } else {
    f.minutes.non_billable += p.minutes;
  }
  f.billed_value += p.billedValue;
  f.cost += p.cost;
}

function priced(e: ReportEffort, amount: (minutes: number, rate: number) => number): Priced {
  return {
    minutes: e.minutes,
    billable: e.billable,
    unrated: !e.rate,
    value: e.billable && e.rate ? amount(e.minutes, e.rate.rate) : 0,
    billed: e.billed !== null,
    billedValue: e.billed ? amount(e.billed.minutes, e.billed.rate) : 0,
    cost: e.cost_rate ? amount(e.minutes, e.cost_rate) : 0,
  };
}

/** Adds one effort to `f`. */
export function addEffort(f: Figures, e: ReportEffort): void {
  add(f, priced(e, amountOf));
}

export interface ProjectFigures {
  totals: Figures;
  by_user: Map<number, Figures>;
  by_task: Map<number | null, Figures>;
  by_month: Map<string, Figures>;
}

export function projectFigures(efforts: Iterable<ReportEffort>): ProjectFigures {
  const out: ProjectFigures = {
    totals: zeroFigures(),
    by_user: new Map(),
    by_task: new Map(),
    by_month: new Map(),
  };
  const part = <K>(m: Map<K, Figures>, k: K): Figures => {
    const f = m.get(k) ?? zeroFigures();
    m.set(k, f);
    return f;
  };
  const amount = memoAmount();
  for (const e of efforts) {
    const p = priced(e, amount);
    add(out.totals, p);
    add(part(out.by_user, e.user_id), p);
    add(part(out.by_task, e.task_id), p);
    add(part(out.by_month, e.date.slice(0, 7)), p);
  }
  return out;
}
