import { sql } from 'kysely';
import { sqlState } from './faults.js';
import type { Db } from './index.js';
import { migrationNames } from './migrator.js';

export type Readiness =
  | { ready: true }
  | { ready: false; database: 'unavailable' | 'migrations_pending'; error?: unknown };

let expected: Promise<string[]> | undefined;

/**
 * Whether this process can serve: the database answers within `timeoutMs`, and every
 * migration this code brings has been applied (a process of a newer version started against
 * a database not yet migrated is not ready). One small read; no write.
 */
export async function readiness(db: Db, timeoutMs = 3000): Promise<Readiness> {
  expected ??= migrationNames();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the database did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    const { rows } = await Promise.race([
      sql<{ name: string }>`select name from kysely_migration`.execute(db),
      deadline,
    ]);
    const applied = new Set(rows.map((r) => r.name));
    const pending = (await expected).filter((name) => !applied.has(name));
    return pending.length ? { ready: false, database: 'migrations_pending' } : { ready: true };
  } catch (error) {
    // No bookkeeping table yet: never migrated. Anything else: the database did not answer.
    const unmigrated = sqlState(error) === '42P01' || /no such table/.test(String((error as Error).message));
    return { ready: false, database: unmigrated ? 'migrations_pending' : 'unavailable', error };
  } finally {
    clearTimeout(timer);
  }
}
