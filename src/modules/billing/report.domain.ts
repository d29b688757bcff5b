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

/** Adds one effort to `f`. */
export function addEffort(f: Figures, e: ReportEffort): void {
  f.minutes.tracked += e.minutes;
  if (e.billable) {
    f.minutes.billable += e.minutes;
    if (!e.rate) f.minutes.unrated += e.minutes;
    const value = e.rate ? amountOf(e.minutes, e.rate.rate) : 0;
    f.billable_value += value;
    if (!e.billed) f.uninvoiced_value += value;
  } else {
    f.minutes.non_billable += e.minutes;
  }
  if (e.billed) f.billed_value += amountOf(e.billed.minutes, e.billed.rate);
  if (e.cost_rate) f.cost += amountOf(e.minutes, e.cost_rate);
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
  for (const e of efforts) {
    addEffort(out.totals, e);
    addEffort(part(out.by_user, e.user_id), e);
    addEffort(part(out.by_task, e.task_id), e);
    addEffort(part(out.by_month, e.date.slice(0, 7)), e);
  }
  return out;
}
