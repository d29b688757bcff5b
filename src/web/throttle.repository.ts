import type { Db } from '../db/index.js';
import './web.tables.js';

/** Failures in the window, and the oldest one's time, for one e-mail or one address. */
export async function failuresSince(db: Db, column: 'email' | 'ip', value: string, since: string) {
  const row = await db
    .selectFrom('signin_failures')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('at').as('oldest')])
    .where(column, '=', value)
    .where('at', '>', since)
    .executeTakeFirst();
  return { count: Number(row?.n ?? 0), oldest: (row?.oldest as string | null) ?? null };
}

export async function insertFailure(db: Db, email: string, ip: string, at: string): Promise<void> {
  await db.insertInto('signin_failures').values({ email, ip, at }).execute();
}

export async function deleteFailuresOf(db: Db, email: string): Promise<void> {
  await db.deleteFrom('signin_failures').where('email', '=', email).execute();
}

export async function deleteFailuresBefore(db: Db, before: string): Promise<void> {
  await db.deleteFrom('signin_failures').where('at', '<=', before).execute();
}
