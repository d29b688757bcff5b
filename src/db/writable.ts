import { sql } from 'kysely';
import { dbFault } from './faults.js';
import { type Db, isPostgres } from './index.js';

/**
 * Refuses, at start-up, a database the service cannot write: a read-only SQLite file, a
 * directory where SQLite cannot create its WAL, a PostgreSQL user without write rights or in
 * read-only mode (a standby, `default_transaction_read_only`). Otherwise the service would
 * start, answer reads, and fail every write. Runs after migrations (migrateToLatest calls it).
 */
export async function assertWritable(db: Db): Promise<void> {
  try {
    // Changes nothing, but needs what any write needs: SQLite begins a write transaction,
    // PostgreSQL checks the user's UPDATE right and the transaction's read-only mode.
    await sql`update accounts set id = id where 1 = 0`.execute(db);
  } catch (err) {
    throw cannotWrite(err) ? notWritable(db, err) : err;
  }
}

/** A read-only database, or a PostgreSQL user without the right to write. */
export const cannotWrite = (err: unknown): boolean =>
  dbFault(err) === 'read_only' || (err as { code?: unknown } | null)?.code === '42501';

/** The start-up error for a database that cannot be written, in one line. */
export function notWritable(db: Db, err: unknown): Error {
  const e = err as { code?: unknown; message?: unknown };
  const why = `${String(e?.message ?? err)}${typeof e?.code === 'string' ? ` (${e.code})` : ''}`;
  const hint = isPostgres(db)
    ? "check the user's rights and that the server is not a standby or in read-only mode (default_transaction_read_only)"
    : 'check that the file and its directory are writable by this process (SQLite writes its WAL beside the file)';
  return new Error(`the database cannot be written: ${why}; ${hint}`, { cause: err });
}
