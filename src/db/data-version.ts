import type SQLite from 'better-sqlite3';
import { type Kysely, PostgresAdapter, sql } from 'kysely';
import { sqliteOf } from './prepared.js';

/** SQLite's version as an expression: `dataVersion` reads it alone, `versionColumn` beside another. */
const SQLITE_VERSION = "total_changes() || ':' || (select data_version from pragma_data_version)";

const statements = new WeakMap<SQLite.Database, SQLite.Statement>();

/**
 * A value that changes whenever the data of the database may have changed: on SQLite, the rows
 * this connection has changed so far (`total_changes()`, counted as each statement runs, also
 * in a transaction that is later rolled back) and `data_version`, which changes when another
 * connection — another server process, the worker, the CLI — commits. Equal values read at two
 * moments mean that nothing was written in between, by anyone.
 *
 * `undefined` where no such value exists: PostgreSQL (see `pgDataVersion`), and a SQLite
 * connection inside a transaction (its reads wait for it to end, see db/prepared.ts).
 */
// biome-ignore lint/suspicious/noExplicitAny: any database schema
export function dataVersion(db: Kysely<any>): string | undefined {
  const sqlite = sqliteOf(db);
  if (!sqlite || sqlite.inTransaction) return undefined;
  let stmt = statements.get(sqlite);
  if (!stmt) {
    stmt = sqlite.prepare(`select ${SQLITE_VERSION}`).pluck();
    statements.set(sqlite, stmt);
  }
  return stmt.get() as string;
}

/**
 * PostgreSQL's counterpart, read as a column of another statement (the auth epoch's, which
 * every request with a token waits for anyway: plugins/token-cache.ts): the snapshot of the
 * statement, `xmin:xmax:xip…`. Two equal snapshots see exactly the same committed
 * transactions, so nothing was committed in between, by anyone; any commit that assigned a
 * transaction id changes it. It is the server's, not the database's: a commit to another
 * database of the same server changes it too (a kept page is then read again, never wrong).
 */
const pgDataVersion = sql<string>`pg_current_snapshot()::text`;

/**
 * The data version as a column of another statement, on either database: the auth epoch's
 * read (plugins/token-cache.ts), made once for the requests that arrived together, carries
 * it, so that a kept page (plugins/page-cache.ts) is answered without a statement of its own.
 * On SQLite that read is only made outside a transaction (`prepared(...).now`), as
 * `dataVersion` requires; its value has the same form as `dataVersion`'s.
 */
// biome-ignore lint/suspicious/noExplicitAny: any database schema
export const versionColumn = (db: Kysely<any>) =>
  db.getExecutor().adapter instanceof PostgresAdapter ? pgDataVersion : sql.raw<string>(SQLITE_VERSION);
