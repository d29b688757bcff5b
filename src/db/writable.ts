import { sql } from 'kysely';
import { dbFault, notWritableError, sqlState } from './faults.js';
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
  dbFault(err) === 'read_only' || sqlState(err) === '42501';

/** The start-up error for a database that cannot be written, in one line. */
export const notWritable = (db: Db, err: unknown): Error =>
  notWritableError(isPostgres(db) ? 'postgres' : 'sqlite', err);
