/**
 * Rows that belong to one account (issue 17, "one of everything"): the lookup, update and
 * insert every repository wrote out by hand. Infrastructure, so the SQL is allowed here; a
 * repository calls these with its own table, so each still touches only its module's tables.
 * The queries are the ones the repositories had: `where account_id = ? and id = ?`, `select *`,
 * `returning *`.
 */
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Db } from '../db/index.js';
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

/** The row with this id in this account, or undefined. */
export function findOwned<T extends OwnedTable>(
  db: Db,
  table: T,
  accountId: number,
  id: number,
): Promise<Row<T> | undefined> {
  return ownedRowQuery(db, table, accountId, id).executeTakeFirst() as Promise<Row<T> | undefined>;
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
export function insertReturning<T extends OwnedTable>(
  db: Db,
  table: T,
  values: Insertable<Database[T]>,
): Promise<Row<T>> {
  return loose(db)
    .insertInto(table as string)
    .values(values as Insertable<Loose[string]>)
    .returningAll()
    .executeTakeFirstOrThrow() as Promise<Row<T>>;
}

/** The row a lookup found, or 404 `<noun> not found`: the check after every find by id. */
export function orNotFound<R>(row: R | undefined, noun: string): R {
  if (!row) throw notFound(noun);
  return row;
}
