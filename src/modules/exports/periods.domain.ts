import { AppError } from '../../shared/errors.js';

/** The months (YYYY-MM) a date range touches, in order. */
export function monthsOf(from: string, to: string): string[] {
  const out: string[] = [];
  let y = Number(from.slice(0, 4));
  let m = Number(from.slice(5, 7));
  const end = to.slice(0, 7);
  for (;;) {
    const p = `${y}-${String(m).padStart(2, '0')}`;
    if (p > end) return out;
    out.push(p);
    if (++m > 12) {
      m = 1;
      y++;
    }
  }
}

/** The last day of a date's month. */
export function monthEnd(date: string): string {
  const d = new Date(Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)), 0));
  return d.toISOString().slice(0, 10);
}

/** Whether a range is whole months: from a first day to a last day. */
export const wholeMonths = (from: string, to: string): boolean => from.endsWith('-01') && monthEnd(to) === to;

/**
 * The 409 of a write dated in a locked month (Festschreibung, GoBD): the month, when and
 * whether it was locked, is named so that a program can tell the user which one.
 */
export function periodLockedError(what: string, date: string, lockedAt: string): AppError {
  const period = date.slice(0, 7);
  return new AppError(
    'period_locked',
    `${what} is dated ${date}, in ${period}, which was locked for good on ${lockedAt.slice(0, 10)} (Festschreibung); nothing in it changes any more`,
    { extra: { period } },
  );
}

/**
 * The first day on or after `date` outside the locked months: `date` itself when its month is
 * open, else the first day of the next open month.
 */
export function firstOpenDay(date: string, locked: ReadonlySet<string>): string {
  if (!locked.has(date.slice(0, 7))) return date;
  let y = Number(date.slice(0, 4));
  let m = Number(date.slice(5, 7));
  for (;;) {
    if (++m > 12) {
      m = 1;
      y++;
    }
    const p = `${y}-${String(m).padStart(2, '0')}`;
    if (!locked.has(p)) return `${p}-01`;
  }
}
