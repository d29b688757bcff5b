/**
 * The front door of exports for other modules: the period lock (Festschreibung). Every service
 * that writes something dated into the books (booking an outgoing invoice or credit, deleting a
 * booked one by force, recording a payment or credit offset, booking an incoming invoice)
 * calls `assertPeriodOpen` inside its transaction before it writes; a locked month answers
 * 409 `period_locked` and nothing changes. Exports import none of those modules.
 */
import type { Db } from '../../db/index.js';
import * as repo from './exports.repository.js';
import { firstOpenDay, periodLockedError } from './periods.domain.js';

/**
 * Refuses (409 `period_locked`) when a date lies in a locked month. `what` names the
 * document in the message ("Invoice 12"). Dates that are null (undated drafts) pass.
 */
export async function assertPeriodOpen(
  db: Db,
  accountId: number,
  what: string,
  ...dates: (string | null | undefined)[]
): Promise<void> {
  const given = dates.filter((d): d is string => typeof d === 'string' && d.length >= 7);
  if (given.length === 0) return;
  await repo.periodGuard(db, accountId, false);
  const locked = await repo.lockedPeriods(db, accountId, [...new Set(given.map((d) => d.slice(0, 7)))]);
  if (locked.length === 0) return;
  const first = locked[0]!;
  const date = given.find((d) => d.startsWith(first.period))!;
  throw periodLockedError(what, date, new Date(first.locked_at).toISOString());
}

/**
 * The date a document without one is booked on: `today`, or when today's month is locked, the
 * first day of the next open month (a date given explicitly is checked by `assertPeriodOpen`).
 */
export async function openBookingDate(db: Db, accountId: number, today: string): Promise<string> {
  await repo.periodGuard(db, accountId, false);
  return firstOpenDay(today, new Set(await repo.locksFrom(db, accountId, today.slice(0, 7))));
}
