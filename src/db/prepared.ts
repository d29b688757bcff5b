import { randomBytes } from 'node:crypto';
import type SQLite from 'better-sqlite3';
import type { CompiledQuery, Kysely } from 'kysely';

interface Compilable<Row> {
  compile(): CompiledQuery<Row>;
}

// biome-ignore lint/suspicious/noExplicitAny: keyed by any Kysely instance
const syncSqlite = new WeakMap<Kysely<any>, SQLite.Database>();

/**
 * Lets `prepared()` reads on this Kysely instance call better-sqlite3 directly. Only the
 * root instance is registered: a transaction is another instance and keeps Kysely's path.
 */
// biome-ignore lint/suspicious/noExplicitAny: any database schema
export function registerSyncSqlite(db: Kysely<any>, sqlite: SQLite.Database): void {
  syncSqlite.set(db, sqlite);
}

/**
 * `alias` (a handle that stands for `of`, see db/transact.ts requestScoped) reads the same
 * SQLite file. Inside a transaction `sqlite.inTransaction` holds, and the read goes through
 * `alias`, i.e. Kysely's path, to whatever the alias means at that moment.
 */
// biome-ignore lint/suspicious/noExplicitAny: any database schema
export function aliasSyncSqlite(alias: Kysely<any>, of: Kysely<any>): void {
  const sqlite = syncSqlite.get(of);
  if (sqlite) syncSqlite.set(alias, sqlite);
}

interface Entry<Row> {
  query: CompiledQuery<Row>;
  slots: number[];
  /** The statement for the synchronous SQLite path, when the query only reads. */
  stmt?: SQLite.Statement;
  sqlite?: SQLite.Database;
}

/**
 * A query built once and then run with new parameter values: Kysely builds and compiles a
 * query anew on every call, which on a hot path (the token check of every request, a read by
 * id) costs several times what running it costs.
 *
 * `build` receives stand-ins for the arguments and may only pass them on as values (no
 * arithmetic or string work on them); the compiled SQL is cached per database, because
 * SQLite and PostgreSQL spell it differently.
 *
 * On SQLite a read runs straight on better-sqlite3 (it is synchronous anyway), skipping
 * Kysely's connection queue — unless the connection is inside a transaction, whose
 * uncommitted rows another request must not see: then it waits in Kysely's queue as usual.
 */
// biome-ignore lint/suspicious/noExplicitAny: works for any database schema
export function prepared<Args extends readonly unknown[], Row, DB = any>(
  arity: Args['length'],
  build: (db: Kysely<DB>, ...args: Args) => Compilable<Row>,
) {
  const cache = new WeakMap<Kysely<DB>, Entry<Row>>();
  const tag = randomBytes(6).toString('hex');
  const standIns = Array.from({ length: arity }, (_, i) => `\u0000arg${i}:${tag}`);

  function compiledFor(db: Kysely<DB>): Entry<Row> {
    let hit = cache.get(db);
    if (!hit) {
      const query = build(db, ...(standIns as unknown as Args)).compile();
      const slots = query.parameters.map((p) => standIns.indexOf(p as string));
      if (slots.includes(-1))
        throw new Error('prepared(): the query has a parameter that is not an argument');
      hit = { query, slots };
      const sqlite = syncSqlite.get(db);
      if (sqlite) {
        const stmt = sqlite.prepare(query.sql);
        if (stmt.reader) Object.assign(hit, { stmt, sqlite });
      }
      cache.set(db, hit);
    }
    return hit;
  }

  const syncRows = ({ slots, stmt, sqlite }: Entry<Row>, args: Args): Row[] | undefined =>
    !stmt || sqlite!.inTransaction ? undefined : (stmt.all(slots.map((i) => args[i])) as Row[]);

  /** The rows right now, or `undefined` where that needs waiting (PostgreSQL, a transaction). */
  const now = (db: Kysely<DB>, ...args: Args): Row[] | undefined => syncRows(compiledFor(db), args);

  const run = async (db: Kysely<DB>, ...args: Args): Promise<Row[]> => {
    const entry = compiledFor(db);
    const rows = syncRows(entry, args);
    if (rows) return rows;
    const result = await db.executeQuery<Row>({
      ...entry.query,
      parameters: entry.slots.map((i) => args[i]),
    });
    return result.rows;
  };
  return Object.assign(run, { now });
}
