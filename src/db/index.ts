import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  PostgresAdapter,
  PostgresDialect,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
} from 'kysely';
import pg from 'pg';
import type { DbConfig } from '../config.js';
import { dbFault, notWritableError, withCode } from './faults.js';
import { registerGroupCommit } from './group-commit.js';
import { type DbLogger, ResilientPool } from './pg-pool.js';
import { registerSyncSqlite } from './prepared.js';
import type { Database, Db } from './schema.js';
import { forKysely } from './sqlite-rows.js';

export type { Db };
export type DbKind = DbConfig['kind'];

// Read int8 (ids, minor units) as numbers, dates as 'YYYY-MM-DD' and timestamps as RFC 3339
// UTC strings, so rows look the same on PostgreSQL as on SQLite (where they are stored as text).
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1082, (v) => v);
pg.types.setTypeParser(1114, (v) => utcIso(v, '') ?? new Date(`${v.replace(' ', 'T')}Z`).toISOString());
pg.types.setTypeParser(1184, (v) => utcIso(v, '+00') ?? new Date(v).toISOString());

const PG_TIMESTAMP = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?(\+00)?$/;

/**
 * `2026-11-27 13:37:25.123456+00` as `2026-11-27T13:37:25.123Z`, by moving characters: what
 * `new Date(v).toISOString()` gives (milliseconds cut, not rounded), at a fifth of its cost —
 * a page of 50 rows has 100–200 timestamps. Anything else (another offset, a year past 9999,
 * `infinity`) is left to Date: undefined.
 */
export function utcIso(v: string, offset: '' | '+00'): string | undefined {
  const m = PG_TIMESTAMP.exec(v);
  if (!m || (m[4] ?? '') !== offset) return undefined;
  return `${m[1]}T${m[2]}.${`${m[3] ?? ''}000`.slice(0, 3)}Z`;
}

/** True on PostgreSQL, also for a transaction: for the few queries the two spell differently. */
// biome-ignore lint/suspicious/noExplicitAny: any database schema
export const isPostgres = (db: Kysely<any>): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

export interface DbHandle {
  db: Db;
  kind: DbKind;
  destroy(): Promise<void>;
}

/** Where the service's SQLite connection keeps temporary storage (see openSqlite; the migrator restores it). */
export const SERVICE_TEMP_STORE = 'memory';

export function openSqlite(file: string): SQLite.Database {
  let sqlite: SQLite.Database;
  try {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    sqlite = new SQLite(file);
  } catch (err) {
    // better-sqlite3 says "unable to open database file" without saying which.
    throw new Error(`cannot open the SQLite database ${file}: ${withCode(err)}`, { cause: err });
  }
  // WAL + synchronous=FULL: an acknowledged commit survives a crash or power loss. Switching
  // to WAL writes, and so is the first thing to fail in a read-only file or directory.
  try {
    sqlite.pragma('journal_mode = WAL');
  } catch (err) {
    sqlite.close();
    throw dbFault(err) === 'read_only' ? notWritableError('sqlite', err) : err;
  }
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // Temporary storage in memory: above all the sub-journal that every savepoint of the group
  // commit (and every statement whose triggers write) keeps of the pages it changes. On files
  // it spills past 64 KiB into a temporary file that is written page by page and is only
  // truncated at COMMIT, so a batch of 40 invoice creates made ~22 writes(2) per create
  // (INSERT 170 → 31 µs). In memory it is emptied at each savepoint's RELEASE. Durability is
  // the WAL's alone and unchanged. A sub-journal in memory is as large as the pages one write
  // changed (kilobytes for the API's bounded requests; migrations, which may rewrite a table,
  // switch to files: db/migrator.ts). Sorts stay bounded by cache_size either way; what else
  // goes to memory (UNION and IN sets, GROUP BY without an index) holds ids here.
  sqlite.pragma(`temp_store = ${SERVICE_TEMP_STORE}`);
  // shared/search.ts `fold`: SQLite's own lower() and LIKE fold ASCII letters only.
  sqlite.function('fold', { deterministic: true }, (s: unknown) =>
    typeof s === 'string' ? s.normalize('NFC').toLowerCase() : s,
  );
  return sqlite;
}

/**
 * Kysely prepares every query anew; on better-sqlite3 preparing costs more than running a
 * small query. Statements are reusable (Kysely runs one query at a time per connection), so
 * keep the most recent ones by SQL text.
 */
function withStatementCache(sqlite: SQLite.Database, max = 1000) {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      let stmt = cache.get(sql);
      if (stmt) {
        cache.delete(sql);
      } else {
        stmt = forKysely(sqlite.prepare(sql));
        if (cache.size >= max) cache.delete(cache.keys().next().value!);
      }
      cache.set(sql, stmt);
      return stmt;
    },
  };
}

/**
 * Transactions begin IMMEDIATE, i.e. take SQLite's write lock at once and wait for it
 * (busy_timeout): most of ours read before they write, and a deferred transaction whose
 * snapshot another process (a second server process, the worker, the CLI) wrote past cannot
 * upgrade and fails. Within one process Kysely's single connection serializes them anyway.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  constructor(
    settings: SqliteDialectConfig,
    private readonly sqlite: SQLite.Database,
  ) {
    super(settings);
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  // SQLite ends the transaction itself on some errors (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM,
  // SQLITE_BUSY while committing). Kysely then rolls back anyway, which fails with "cannot
  // rollback - no transaction is active", and that error replaces the one that says what
  // happened. Nothing is left to undo, so skip it and let the real error through.
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.sqlite.inTransaction) await super.rollbackTransaction(connection);
  }

  override async rollbackToSavepoint(
    ...args: Parameters<SqliteDriver['rollbackToSavepoint']>
  ): Promise<void> {
    if (this.sqlite.inTransaction) await super.rollbackToSavepoint(...args);
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(
    private readonly settings: SqliteDialectConfig,
    private readonly sqlite: SQLite.Database,
  ) {
    super(settings);
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.settings, this.sqlite);
  }
}

export interface DbOptions {
  /** Where lost PostgreSQL connections are reported (default: a pino logger named "db"). */
  log?: DbLogger;
}

export function createDb(config: DbConfig, options: DbOptions = {}): DbHandle {
  if (config.kind === 'sqlite') {
    const sqlite = openSqlite(config.file);
    const db = new Kysely<Database>({
      dialect: new ImmediateSqliteDialect({ database: withStatementCache(sqlite) }, sqlite),
    });
    registerSyncSqlite(db, sqlite);
    registerGroupCommit(db, sqlite);
    return { db, kind: 'sqlite', destroy: () => db.destroy() };
  }
  const pool = new ResilientPool(config, options.log);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, kind: 'postgres', destroy: () => db.destroy() };
}
