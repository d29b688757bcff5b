import { sql } from 'kysely';
import { type Db, isPostgres } from '../db/index.js';

/**
 * Takes up to `lease` requests of `key`'s window, never more than `max` in all, in one
 * atomic statement (two processes cannot both take the last one). Answers what was granted
 * (0 once the window is spent) and how many the window has handed out now.
 * In an UPDATE every right-hand side sees the row as it was, so `granted` and `used` agree.
 */
export async function claimRequests(
  db: Db,
  key: string,
  windowStart: number,
  lease: number,
  max: number,
): Promise<{ granted: number; used: number }> {
  const [lo, hi] = isPostgres(db) ? [sql`least`, sql`greatest`] : [sql`min`, sql`max`];
  const take = sql<number>`${hi}(0, ${lo}(${lease}, ${max} - rate_limit_windows.used))`;
  const first = Math.min(lease, max);
  const row = await db
    .insertInto('rate_limit_windows')
    .values({ key, window_start: windowStart, used: first, granted: first })
    .onConflict((oc) =>
      oc.columns(['key', 'window_start']).doUpdateSet({
        granted: take,
        used: sql<number>`rate_limit_windows.used + ${take}`,
      }),
    )
    .returning(['granted', 'used'])
    .executeTakeFirstOrThrow();
  return { granted: Number(row.granted), used: Number(row.used) };
}

/** Windows that ended before `before` (epoch ms) are of no further use. */
export async function deleteWindowsBefore(db: Db, before: number): Promise<void> {
  await db.deleteFrom('rate_limit_windows').where('window_start', '<', before).execute();
}
