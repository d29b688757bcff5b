import type { Db } from '../db/index.js';
import { clock, isoAt } from './clock.js';
import * as repo from './throttle.repository.js';

/**
 * Failed sign-ins are counted per e-mail (guessing one user's password) and per client
 * address (trying many users), in the database so that every process counts the same. Past
 * either limit within the window, sign-in is refused without checking the password until
 * the oldest failure leaves the window. Unknown e-mails count like known ones, so the limit
 * says nothing about who exists.
 */
export const THROTTLE_WINDOW_MS = 15 * 60_000;
export const MAX_FAILURES_PER_EMAIL = 5;
export const MAX_FAILURES_PER_ADDRESS = 20;

/** Seconds until another attempt is allowed, or 0 when it is allowed now. */
export async function throttledFor(db: Db, email: string, ip: string): Promise<number> {
  const now = clock.now();
  const since = isoAt(now - THROTTLE_WINDOW_MS);
  const [byEmail, byIp] = await Promise.all([
    repo.failuresSince(db, 'email', email, since),
    repo.failuresSince(db, 'ip', ip, since),
  ]);
  let until = 0;
  for (const [f, max] of [
    [byEmail, MAX_FAILURES_PER_EMAIL],
    [byIp, MAX_FAILURES_PER_ADDRESS],
  ] as const)
    if (f.count >= max && f.oldest) until = Math.max(until, Date.parse(f.oldest) + THROTTLE_WINDOW_MS);
  return until > now ? Math.ceil((until - now) / 1000) : 0;
}

export async function recordFailure(db: Db, email: string, ip: string): Promise<void> {
  const now = clock.now();
  await repo.insertFailure(db, email, ip, isoAt(now));
  // Old rows are of no use: each failure clears what has left the window (an indexed range).
  if (Math.random() < 0.1) await repo.deleteFailuresBefore(db, isoAt(now - THROTTLE_WINDOW_MS));
}

/** A successful sign-in clears the e-mail's failures (not the address's: one good account must not reset them). */
export const clearFailures = (db: Db, email: string) => repo.deleteFailuresOf(db, email);
