import type SQLite from 'better-sqlite3';
import type { Kysely } from 'kysely';
import { sqliteOf } from './prepared.js';

const statements = new WeakMap<SQLite.Database, SQLite.Statement>();

/**
 * A value that changes whenever the data of the database may have changed: on SQLite, the rows
 * this connection has changed so far (`total_changes()`, counted as each statement runs, also
 * in a transaction that is later rolled back) and `data_version`, which changes when another
 * connection — another server process, the worker, the CLI — commits. Equal values read at two
 * moments mean that nothing was written in between, by anyone.
 *
 * `undefined` where no such value exists: PostgreSQL, and a SQLite connection inside a
 * transaction (its reads wait for it to end, see db/prepared.ts).
 */
// biome-ignore lint/suspicious/noExplicitAny: any database schema
export function dataVersion(db: Kysely<any>): string | undefined {
  const sqlite = sqliteOf(db);
  if (!sqlite || sqlite.inTransaction) return undefined;
  let stmt = statements.get(sqlite);
  if (!stmt) {
    stmt = sqlite.prepare("select total_changes() || ':' || data_version from pragma_data_version").pluck();
    statements.set(sqlite, stmt);
  }
  return stmt.get() as string;
}
