import { randomBytes } from 'node:crypto';
import type SQLite from 'better-sqlite3';
import { type CompiledQuery, type Kysely, PostgresAdapter } from 'kysely';
import { sqlState } from './faults.js';
import type { Db } from './schema.js';
import { rowsOf } from './sqlite-rows.js';

interface Compilable<Row> {
  compile(): CompiledQuery<Row>;
}

// biome-ignore lint/suspicious/noExplicitAny: keyed by any Kysely instance
const syncSqlite = new WeakMap<Kysely<any>, SQLite.Database>();
/**
 * The connection by the database's adapter: a Kysely instance and every transaction and
 * savepoint begun on it share one adapter object, so a query compiled once serves them all.
 */
const sqliteByAdapter = new WeakMap<object, SQLite.Database>();

/**
 * Lets `prepared()` statements on this Kysely instance (and on its transactions) call
 * better-sqlite3 directly.
 */
// biome-ignore lint/suspicious/noExplicitAny: any database schema
export function registerSyncSqlite(db: Kysely<any>, sqlite: SQLite.Database): void {
  syncSqlite.set(db, sqlite);
  sqliteByAdapter.set(db.getExecutor().adapter, sqlite);
}

/** The better-sqlite3 connection behind a Kysely instance (or an alias of one), if any. */
// biome-ignore lint/suspicious/noExplicitAny: any database schema
export const sqliteOf = (db: Kysely<any>): SQLite.Database | undefined => syncSqlite.get(db);

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
  /** The statement on the synchronous SQLite path (rows, or none for a write without RETURNING). */
  rows?: (params: unknown[]) => Row[];
  sqlite?: SQLite.Database;
  /** PostgreSQL: calls made together are answered by one query (see `batched`). */
  batchable?: boolean;
  waiting?: Waiting<Row>[];
  /** The one-query form of the statement, by the SQL types of its parameters. */
  batchSql?: Map<string, string>;
}

interface Waiting<Row> {
  params: unknown[];
  resolve(rows: Row[]): void;
  reject(err: unknown): void;
}

const ORD = '__batch_ord';
/** undefined_function (no such operator), datatype_mismatch, indeterminate_datatype. */
const MISTYPED = new Set(['42883', '42804', '42P18']);

/** The SQL type an array of these parameter values can travel as; undefined: none fits all. */
function arrayType(values: unknown[]): string | undefined {
  if (values.every((v) => typeof v === 'number' && Number.isSafeInteger(v))) return 'int8';
  if (values.every((v) => typeof v === 'string')) return 'text';
  if (values.every((v) => typeof v === 'boolean')) return 'bool';
  return undefined;
}

/**
 * One query for many calls: the statement runs once per row of the parameter arrays
 * (`unnest … with ordinality`, a lateral join), and each row says which call it answers.
 * `$n` becomes a column of that row, typed as its array (an integer column compared with an
 * int8 keeps its index).
 */
function batchSql(sql: string, types: string[]): string {
  const cols = types.map((_, i) => `p${i + 1}`);
  const arrays = types.map((t, i) => `$${i + 1}::${t}[]`);
  const inner = sql.replace(/\$(\d+)/g, (_, n: string) => `__batch.p${n}`);
  return `select __batch.${ORD}, __q.* from unnest(${arrays.join(', ')}) with ordinality as __batch(${cols.join(', ')}, ${ORD}) cross join lateral (${inner}) as __q`;
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
  // By adapter: one compiled query for a database and all its transactions (see above).
  const cache = new WeakMap<object, Entry<Row>>();
  const tag = randomBytes(6).toString('hex');
  const standIns = Array.from({ length: arity }, (_, i) => `\u0000arg${i}:${tag}`);

  function compiledFor(db: Kysely<DB>): Entry<Row> {
    const adapter = db.getExecutor().adapter;
    let hit = cache.get(adapter);
    if (!hit) {
      const query = build(db, ...(standIns as unknown as Args)).compile();
      const slots = query.parameters.map((p) => standIns.indexOf(p as string));
      if (slots.includes(-1))
        throw new Error('prepared(): the query has a parameter that is not an argument');
      hit = { query, slots };
      // Single-row reads by key, the hot path: a query that orders or pages its rows keeps
      // running alone (rows of a lateral join come back in no promised order).
      hit.batchable =
        adapter instanceof PostgresAdapter &&
        query.parameters.length > 0 &&
        /^select /i.test(query.sql) &&
        !/ (order by|limit|offset) /i.test(query.sql);
      const sqlite = sqliteByAdapter.get(adapter);
      if (sqlite) {
        const stmt = sqlite.prepare(query.sql);
        const rows = stmt.reader
          ? rowsOf(stmt)
          : (params: unknown[]) => {
              stmt.run(params);
              return [];
            };
        Object.assign(hit, { rows, sqlite });
      }
      cache.set(adapter, hit);
    }
    return hit;
  }

  /**
   * SQLite runs the statement at once: in a transaction's own code (it holds the one
   * connection, and the statement is its next one), or when no transaction is open. A call
   * on the database while a transaction is open must not see its uncommitted rows: it waits
   * in Kysely's queue for the connection, as any query does.
   */
  const syncRows = ({ slots, rows, sqlite }: Entry<Row>, db: Kysely<DB>, args: Args): Row[] | undefined =>
    !rows || (sqlite!.inTransaction && !db.isTransaction) ? undefined : rows(slots.map((i) => args[i]));

  /** The rows right now, or `undefined` where that needs waiting (PostgreSQL, a transaction). */
  const now = (db: Kysely<DB>, ...args: Args): Row[] | undefined => syncRows(compiledFor(db), db, args);

  const single = async (db: Kysely<DB>, entry: Entry<Row>, params: unknown[]): Promise<Row[]> =>
    (await db.executeQuery<Row>({ ...entry.query, parameters: params })).rows;

  /**
   * PostgreSQL, outside a transaction: the calls made until the event loop turns (the requests
   * it took in together, each reading its row) wait and go as one query — one round trip and
   * one connection instead of one each. Each call still reads committed data as of a moment
   * after it was made.
   */
  const batched = (db: Kysely<DB>, entry: Entry<Row>, params: unknown[]): Promise<Row[]> =>
    new Promise<Row[]>((resolve, reject) => {
      if (!entry.waiting) {
        entry.waiting = [];
        setImmediate(() => flush(db, entry));
      }
      entry.waiting.push({ params, resolve, reject });
    });

  function flush(db: Kysely<DB>, entry: Entry<Row>): void {
    const calls = entry.waiting ?? [];
    entry.waiting = undefined;
    const alone = (w: Waiting<Row>) => {
      single(db, entry, w.params).then(w.resolve, w.reject);
    };
    if (calls.length === 1) {
      alone(calls[0]!);
      return;
    }
    const columns = entry.query.parameters.map((_, i) => calls.map((c) => c.params[i]));
    const types = columns.map(arrayType);
    if (types.includes(undefined)) {
      for (const c of calls) alone(c);
      return;
    }
    const key = types.join(',');
    entry.batchSql ??= new Map();
    let sql = entry.batchSql.get(key);
    if (!sql) {
      sql = batchSql(entry.query.sql, types as string[]);
      entry.batchSql.set(key, sql);
    }
    db.executeQuery<Row & { [ORD]: number }>({ ...entry.query, sql, parameters: columns }).then(
      ({ rows }) => {
        const answers = calls.map((): Row[] => []);
        for (const row of rows) {
          const { [ORD]: ord, ...rest } = row;
          answers[ord - 1]!.push(rest as Row);
        }
        for (const [i, c] of calls.entries()) c.resolve(answers[i]!);
      },
      (err: unknown) => {
        // A parameter whose type the statement took from its context (a date compared with
        // a string) does not fit an array of text: this statement runs alone from now on.
        if (MISTYPED.has(sqlState(err))) {
          entry.batchable = false;
          for (const c of calls) alone(c);
        } else for (const c of calls) c.reject(err);
      },
    );
  }

  const run = async (db: Kysely<DB>, ...args: Args): Promise<Row[]> => {
    const entry = compiledFor(db);
    const rows = syncRows(entry, db, args);
    if (rows) return rows;
    const params = entry.slots.map((i) => args[i]);
    if (entry.batchable && !db.isTransaction) return batched(db, entry, params);
    return single(db, entry, params);
  };
  return Object.assign(run, { now });
}

/**
 * `prepared()` for a query over a list of values (`in (…)`) besides its fixed arguments: one
 * statement per length of the list, up to `max` (a page's rows), each built once; a longer
 * list is built by Kysely per call. The list is the first argument after the database.
 * Building an `in` of 50 values with Kysely cost more than running it (the files of a page of
 * tasks).
 */
// biome-ignore lint/suspicious/noExplicitAny: works for any database schema
export function preparedList<Args extends readonly unknown[], Row, DB = any>(
  arity: Args['length'],
  build: (db: Kysely<DB>, list: readonly unknown[], ...args: Args) => Compilable<Row>,
  max = 100,
) {
  const byLength = new Map<number, (db: Kysely<DB>, ...values: unknown[]) => Promise<Row[]>>();
  return async (db: Kysely<DB>, list: readonly unknown[], ...args: Args): Promise<Row[]> => {
    const n = list.length;
    if (n > max) return (await db.executeQuery(build(db, list, ...args).compile())).rows;
    let run = byLength.get(n);
    if (!run) {
      run = prepared(arity + n, (d: Kysely<DB>, ...values: unknown[]) =>
        build(d, values.slice(arity), ...(values.slice(0, arity) as unknown as Args)),
      );
      byLength.set(n, run);
    }
    return run(db, ...args, ...list);
  };
}

/**
 * Statements whose text depends only on a shape (a batch's table and columns), built and
 * compiled by Kysely once per shape, not per call — for the multi-row and one-statement creates
 * of issue 15, where compiling per batch cost 5–7 % of the service's CPU. `build` receives a stand-in for
 * each named parameter and may only pass them on as values; a call sends the compiled text
 * with its own values in their places. Shapes are few in practice (the API's creates); each
 * cache is bounded all the same, at 512 as owned.ts's INSERT shapes. PostgreSQL only: the text
 * is that dialect's.
 */
export function compiledByShape<S, P extends string, Row>(
  names: readonly P[],
  keyOf: (shape: S) => string,
  build: (db: Db, shape: S, p: Record<P, unknown>) => CompiledQuery<Row>,
) {
  const cache = new Map<string, { query: CompiledQuery<Row>; slots: P[] }>();
  const standIns = Object.fromEntries(names.map((n) => [n, { standIn: n }])) as Record<P, unknown>;
  return async (db: Db, shape: S, values: Record<P, unknown>): Promise<Row[]> => {
    const key = keyOf(shape);
    let hit = cache.get(key);
    if (!hit) {
      const query = build(db, shape, standIns);
      const slots = query.parameters.map((v) => names.find((n) => standIns[n] === v));
      if (slots.includes(undefined))
        throw new Error('compiledByShape(): the query has a parameter that is not a named one');
      if (cache.size >= 512) cache.clear();
      hit = { query, slots: slots as P[] };
      cache.set(key, hit);
    }
    const { query, slots } = hit;
    return (await db.executeQuery<Row>({ ...query, parameters: slots.map((n) => values[n]) })).rows;
  };
}
