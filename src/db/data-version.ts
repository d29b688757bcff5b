import type SQLite from 'better-sqlite3';
import { type Kysely, PostgresAdapter, sql } from 'kysely';
import { sqliteOf } from './prepared.js';

/**
 * The versions of the tables the page cache watches (migration 2026_12_07_995), as one string
 * `name=version,…`: each counter is bumped by triggers inside the transaction that writes its
 * table, so the versions read in one statement match the rows that statement's snapshot sees.
 * Equal versions of a table read at two moments mean that nothing was committed to it in
 * between, by any process or machine. On PostgreSQL a version is the sum of the table's shards.
 */
const SQLITE_VERSIONS = "(select group_concat(name || '=' || version, ',') from table_versions)";
const PG_VERSIONS =
  "(select string_agg(name || '=' || v, ',') from (select name, sum(version) as v from table_versions group by name) t)";

const statements = new WeakMap<SQLite.Database, SQLite.Statement>();

/**
 * The table versions now, on SQLite, read alone (a request whose token was not kept: its
 * epoch read carried none). `undefined` on PostgreSQL (read only with the epoch, see
 * `versionColumn`) and inside a transaction (its uncommitted rows are no one else's).
 */
// biome-ignore lint/suspicious/noExplicitAny: any database schema
export function dataVersion(db: Kysely<any>): string | undefined {
  const sqlite = sqliteOf(db);
  if (!sqlite || sqlite.inTransaction) return undefined;
  let stmt = statements.get(sqlite);
  if (!stmt) {
    stmt = sqlite.prepare(`select ${SQLITE_VERSIONS}`).pluck();
    statements.set(sqlite, stmt);
  }
  return stmt.get() as string;
}

/**
 * The table versions as a column of another statement, on either database: the auth epoch's
 * read (plugins/token-cache.ts), made once for the requests that arrived together, carries
 * them, so that a kept page (plugins/page-cache.ts) is answered without a statement of its
 * own. On SQLite that read is only made outside a transaction (`prepared(...).now`).
 */
// biome-ignore lint/suspicious/noExplicitAny: any database schema
export const versionColumn = (db: Kysely<any>) =>
  sql.raw<string>(db.getExecutor().adapter instanceof PostgresAdapter ? PG_VERSIONS : SQLITE_VERSIONS);

let lastRead: string | undefined;
let lastParsed = new Map<string, string>();

/**
 * The versions of `tables` in a read of `dataVersion`/`versionColumn`, as one key; undefined
 * when one of them has no version (a table no trigger watches: never cached).
 */
export function versionsOf(read: string, tables: readonly string[]): string | undefined {
  if (read !== lastRead) {
    // One parse per read: the requests that shared an epoch read share its string.
    const parsed = new Map<string, string>();
    for (const pair of read.split(',')) {
      const at = pair.indexOf('=');
      parsed.set(pair.slice(0, at), pair.slice(at + 1));
    }
    lastRead = read;
    lastParsed = parsed;
  }
  let key = '';
  for (const t of tables) {
    const v = lastParsed.get(t);
    if (v === undefined) return undefined;
    key += `${v},`;
  }
  return key;
}
