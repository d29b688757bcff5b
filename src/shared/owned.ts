/**
 * Rows that belong to one account (issue 17, "one of everything"): the lookup, update and
 * insert every repository wrote out by hand. Infrastructure, so the SQL is allowed here; a
 * repository calls these with its own table, so each still touches only its module's tables.
 * The queries are the ones the repositories had: `where account_id = ? and id = ?`, `select *`,
 * `returning *`.
 */
import { type Insertable, type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import { type Db, isPostgres } from '../db/index.js';
import { type BatchKind, batchable, batched } from '../db/insert-batch.js';
import { compiledByShape, prepared } from '../db/prepared.js';
import type { Database } from '../db/schema.js';
import { notFound } from './errors.js';

/** Tables whose rows carry `id` and `account_id`. */
export type OwnedTable = {
  [T in keyof Database]: Database[T] extends { id: unknown; account_id: number } ? T : never;
}[keyof Database];

type Row<T extends OwnedTable> = Selectable<Database[T]>;

/**
 * Kysely cannot follow a table name that is a type parameter through its builders; the
 * queries are built over this plain shape and their results typed by the caller's table.
 */
type Loose = Record<string, { id: number; account_id: number }>;
const loose = (db: Db) => db as unknown as Kysely<Loose>;

/** `select * from <table> where account_id = ? and id = ?` (not run: the caller may add to it). */
export function ownedRowQuery<T extends OwnedTable>(db: Db, table: T, accountId: number, id: number) {
  return loose(db)
    .selectFrom(table as string)
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id);
}

// biome-ignore lint/suspicious/noExplicitAny: rows of any owned table
type Statement = ReturnType<typeof prepared<any[], any>>;
const byId = new Map<string, Statement>();

/** The row with this id in this account, or undefined (a prepared statement per table). */
export async function findOwned<T extends OwnedTable>(
  db: Db,
  table: T,
  accountId: number,
  id: number,
): Promise<Row<T> | undefined> {
  let read = byId.get(table);
  if (!read) {
    read = prepared(2, (d: Db, a: number, i: number) => ownedRowQuery(d, table, a, i));
    byId.set(table, read);
  }
  return (await read(db, accountId, id))[0] as Row<T> | undefined;
}

/**
 * INSERTs by their shape (table, columns, rows), prepared: the statement Kysely would build
 * from such values, compiled once. A bounded number of shapes is kept; values Kysely would
 * turn into SQL rather than parameters (expressions) take Kysely's path.
 */
const SHAPES = 512;
const inserts = new Map<string, Statement>();

const isExpression = (v: unknown) =>
  typeof v === 'function' || (typeof v === 'object' && v !== null && 'toOperationNode' in v);

function insertStatement(table: string, rows: readonly Record<string, unknown>[]) {
  // Rows of one shape: the same keys in the same order, undefined (left out) in the same
  // places. Keys and values are taken by position: reading 40 columns by name from objects of
  // many shapes cost more than running the statement.
  const first = rows[0]!;
  const keys = Object.keys(first);
  const firstValues = Object.values(first);
  const args: unknown[] = [];
  for (const r of rows) {
    const ks = r === first ? keys : Object.keys(r);
    const vs = r === first ? firstValues : Object.values(r);
    if (ks.length !== keys.length) return undefined;
    for (let i = 0; i < ks.length; i++) {
      const v = vs[i];
      if (ks[i] !== keys[i] || (v === undefined) !== (firstValues[i] === undefined)) return undefined;
      if (v === undefined) continue;
      if (isExpression(v)) return undefined;
      args.push(v);
    }
  }
  const columns = keys.filter((_, i) => firstValues[i] !== undefined);
  const key = `${table}\u0000${rows.length}\u0000${columns.join(',')}`;
  let insert = inserts.get(key);
  if (!insert && inserts.size < SHAPES) {
    const count = rows.length;
    insert = prepared(count * columns.length, (d: Db, ...args: unknown[]) =>
      loose(d)
        .insertInto(table)
        .values(
          Array.from({ length: count }, (_, i) =>
            Object.fromEntries(columns.map((c, j) => [c, args[i * columns.length + j]])),
          ) as Insertable<Loose[string]>[],
        )
        .returningAll(),
    );
    inserts.set(key, insert);
  }
  return insert && { insert, args };
}

/** Column names as a list for a statement's text: `"a", "b"`. */
export const columnList = (columns: readonly string[]) => sql.join(columns.map((c) => sql.ref(c)));

/**
 * Several rows that set the same columns, in that order, to plain values (no undefined, no
 * expression) — on PostgreSQL one JSON parameter (`json_populate_recordset`, which converts
 * each field as a parameter of the column's type would be), so the statement's text is the
 * same for any number of rows and stays one named prepared statement (db/pg-pool.ts names only
 * the first few hundred texts) instead of one shape per row count. Every column of the owned
 * tables is a scalar; none takes JSON.
 */
const jsonInsert = compiledByShape(
  ['rows'],
  (s: { table: string; columns: string[] }) => `${s.table}\n${s.columns.join()}`,
  (db, { table, columns }, p) => {
    const cols = columnList(columns);
    return sql<Record<string, unknown>>`insert into ${sql.table(table)} (${cols}) select ${cols}
      from json_populate_recordset(null::${sql.table(table)}, ${p.rows}::json) returning *`.compile(db);
  },
);

/**
 * The columns that rows set, when every row sets the same columns, in the same order, to plain
 * values (no undefined, no expression); else undefined: a column left out of one row would be
 * NULL there instead of its default.
 */
export function plainColumns(rows: readonly Record<string, unknown>[]): string[] | undefined {
  const columns = Object.keys(rows[0]!);
  // A loop over the keys, not Object.entries: no array per row and per column (issue 15).
  const plain = (r: Record<string, unknown>) => {
    let i = 0;
    for (const k in r) {
      const v = r[k];
      if (k !== columns[i++] || v === undefined || isExpression(v)) return false;
    }
    return i === columns.length;
  };
  return rows.every(plain) ? columns : undefined;
}

/** Rows as one JSON text for `json_populate_recordset` (see `jsonInsert`), when `plainColumns` has their columns. */
export function jsonRecordset(
  rows: readonly Record<string, unknown>[],
): { columns: string[]; text: string } | undefined {
  const columns = plainColumns(rows);
  return columns && { columns, text: JSON.stringify(rows) };
}

/** PostgreSQL stops at 65,535 parameters a statement. */
const MAX_PARAMS = 65_535;

/** Rows of `rows` one multi-row INSERT may take: 100, or fewer where their columns are many. */
export function rowsPerInsert(rows: readonly object[]): number {
  const columns = new Set<string>();
  for (const r of rows) for (const k in r) columns.add(k);
  return Math.min(100, Math.floor(MAX_PARAMS / Math.max(1, columns.size)));
}

/**
 * Inserts rows of one shape and returns them as stored (`returning *`). PostgreSQL inserts the
 * rows of an INSERT in the order given and returns each as it goes (Django's bulk_create relies
 * on the same), which the batched creates (db/insert-batch.ts) rely on; other callers sort. The
 * caller keeps within `rowsPerInsert`.
 */
export async function insertRowsReturning<T extends OwnedTable>(
  db: Db,
  table: T,
  rows: readonly Insertable<Database[T]>[],
): Promise<Row<T>[]> {
  if (rows.length === 0) return [];
  if (rows.length > 1 && isPostgres(db)) {
    const json = jsonRecordset(rows as readonly Record<string, unknown>[]);
    if (json)
      return (await jsonInsert(db, { table, columns: json.columns }, { rows: json.text })) as Row<T>[];
  }
  const statement = insertStatement(table, rows as readonly Record<string, unknown>[]);
  if (statement) return (await statement.insert(db, ...statement.args)) as Row<T>[];
  return loose(db)
    .insertInto(table as string)
    .values(rows as Insertable<Loose[string]>[])
    .returningAll()
    .execute() as Promise<Row<T>[]>;
}

const updateQuery = <T extends OwnedTable>(
  db: Db,
  table: T,
  accountId: number,
  id: number,
  values: Updateable<Database[T]>,
) =>
  loose(db)
    .updateTable(table as string)
    .set(values as Updateable<Loose[string]>)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll();

/** Updates the row with this id in this account; the row as it is now, or undefined when there is none. */
export function updateOwned<T extends OwnedTable>(
  db: Db,
  table: T,
  accountId: number,
  id: number,
  values: Updateable<Database[T]>,
): Promise<Row<T> | undefined> {
  return updateQuery(db, table, accountId, id, values).executeTakeFirst() as Promise<Row<T> | undefined>;
}

/** As updateOwned, for a row the caller has already read: Kysely's NoResultError when it is gone. */
export function updateOwnedOrThrow<T extends OwnedTable>(
  db: Db,
  table: T,
  accountId: number,
  id: number,
  values: Updateable<Database[T]>,
): Promise<Row<T>> {
  return updateQuery(db, table, accountId, id, values).executeTakeFirstOrThrow() as Promise<Row<T>>;
}

/** Inserts one row and returns it as stored (`returning *`). */
export async function insertReturning<T extends OwnedTable>(
  db: Db,
  table: T,
  values: Insertable<Database[T]>,
): Promise<Row<T>> {
  return (await insertRowsReturning(db, table, [values]))[0]!;
}

const insertKinds = new Map<OwnedTable, BatchKind<object, object>>();

/**
 * Inserts one row and returns it as stored, as `insertReturning` — on PostgreSQL outside a
 * transaction as a row of a multi-row INSERT shared with the inserts into the same table that
 * arrive with it (db/insert-batch.ts `batched`: a commit and a round trip for many).
 */
export function insertOne<T extends OwnedTable>(
  db: Db,
  table: T,
  values: Insertable<Database[T]>,
): Promise<Row<T>> {
  if (!batchable(db)) return insertReturning(db, table, values);
  let kind = insertKinds.get(table);
  if (!kind) {
    kind = {
      together: (d, rows) => insertRowsReturning(d, table, rows as Insertable<Database[T]>[]),
      alone: (d, row) => insertReturning(d, table, row as Insertable<Database[T]>),
      limit: rowsPerInsert,
      commits: true,
    };
    insertKinds.set(table, kind);
  }
  return batched(db, kind, values) as Promise<Row<T>>;
}

/** The row a lookup found, or 404 `<noun> not found`: the check after every find by id. */
export function orNotFound<R>(row: R | undefined, noun: string): R {
  if (!row) throw notFound(noun);
  return row;
}
