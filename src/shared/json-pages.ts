import { type Kysely, type RawBuilder, type SelectQueryBuilder, SqliteAdapter, sql } from 'kysely';
import type { TObject } from 'typebox';
import { prepared } from '../db/prepared.js';
import type { Database } from '../db/schema.js';

/**
 * A field of a list's answer as the database writes it from a row of the page: the column
 * holding the value as the answer has it, `{ flag }` for a 0/1 column answered as a boolean,
 * or `{ json }` for an expression over the row (`p`) whose value is JSON already.
 */
export type JsonField = string | { flag: string } | { json: RawBuilder<unknown> };

/**
 * The fields of one row of a list's answer in the order the serializer (fast-json-stringify)
 * writes them: the schema's required fields, then its optional ones, each in the schema's
 * order. Each is read from the column of its name unless `fields` says otherwise. Throws when
 * `fields` names a field the schema does not have.
 */
export function jsonShape(schema: TObject, fields: Record<string, JsonField> = {}): [string, JsonField][] {
  const required = new Set(schema.required ?? []);
  const keys = Object.keys(schema.properties);
  for (const k of Object.keys(fields))
    if (!keys.includes(k)) throw new Error(`jsonShape(): the schema has no field "${k}"`);
  const ordered = [...keys.filter((k) => required.has(k)), ...keys.filter((k) => !required.has(k))];
  return ordered.map((k) => [k, fields[k] ?? k]);
}

/**
 * A column of JSON text that JSON.stringify wrote from an object (custom field values),
 * answered as that object: SQLite's json() writes it back as it was written (key order,
 * escapes, numbers); `{}` where the text is empty or not an object, as parseCustomFieldValues
 * reads it (text that is not JSON fails the request there and here). The common `{}` is
 * answered without parsing.
 */
export const storedObject = (column: string): JsonField => {
  const ref = sql.ref(`p.${column}`);
  return {
    json: sql`case when ${ref} = '{}' or ${ref} = '' or ${ref} is null then json('{}')
      when json_type(${ref}) = 'object' then json(${ref}) else json('{}') end`,
  };
};

/**
 * A column of cents answered as the amount (`fromCents`): whole amounts as integers, others
 * with SQLite's `%.15g`, the exact decimal for fewer than 16 digits of cents and so
 * JavaScript's shortest form of cents / 100 (a REAL would be written with up to 17 digits,
 * and 100.0 for 100).
 */
export const centsAsAmount = (column: string): JsonField => {
  const c = sql.ref(`p.${column}`);
  return {
    json: sql`case when ${c} is null then null when ${c} % 100 = 0 then ${c} / 100
      else json(printf('%.15g', ${c} / 100.0)) end`,
  };
};

/** `json_object(…)` of one row of the page `p`, in SQLite's spelling. */
function jsonObject(shape: [string, JsonField][]): RawBuilder<string> {
  const args = shape.map(([key, f]) => {
    const value =
      typeof f === 'string'
        ? sql.ref(`p.${f}`)
        : 'flag' in f
          ? sql`iif(${sql.ref(`p.${f.flag}`)}, json('true'), json('false'))`
          : f.json;
    return sql`${sql.lit(key)}, ${value}`;
  });
  return sql<string>`json_object(${sql.join(args)})`;
}

/** A page of a list as the answer's JSON array of rows, ascending by id. */
export type JsonPageReader = (reverse: boolean, limit: number, offset: number) => Promise<string>;

/**
 * `idPages` (shared/paging.ts) whose pages come back as the answer's `data` array, written by
 * SQLite (`json_group_array(json_object(…))`, one string per page): reading 50 rows into
 * JavaScript values, mapping them and serializing them again was most of what a list of 50
 * cost with the page cache off. The bytes are the serializer's (SQLite escapes strings as
 * JSON.stringify does, and writes a REAL's shortest round-trip form), which
 * test/json-pages.test.ts checks against the mapping for each list that reads its pages so.
 *
 * SQLite only: on PostgreSQL (whose json functions space and reorder keys) the reader is
 * undefined and the list reads its rows as before.
 */
export function jsonIdPages(
  // biome-ignore lint/suspicious/noExplicitAny: any table's query
  build: (db: Kysely<Database>, accountId: number) => SelectQueryBuilder<any, any, any>,
  shape: [string, JsonField][],
  id = 'id',
) {
  const object = jsonObject(shape);
  const key = id.slice(id.lastIndexOf('.') + 1);
  // The aggregate takes the rows in the order the page's subquery yields them: a subquery
  // with a LIMIT is neither flattened into the aggregate nor stripped of its ORDER BY. (An
  // ORDER BY inside json_group_array would sort the 50 objects built, which cost as much as
  // building them.) A page read backwards is put in ascending order first.
  const page = (desc: boolean) =>
    prepared(3, (db: Kysely<Database>, accountId: number, limit: number, offset: number) => {
      const rows = build(db, accountId)
        .orderBy(sql.ref(id), (ob) => (desc ? ob.desc() : ob.asc()))
        .limit(limit)
        .offset(offset);
      const ascending = desc
        ? db
            .selectFrom(rows.as('r'))
            .selectAll()
            .orderBy(sql.ref(`r.${key}`))
            .limit(limit)
        : rows;
      return db.selectFrom(ascending.as('p')).select(sql<string>`json_group_array(${object})`.as('page'));
    });
  const forwards = page(false);
  const backwards = page(true);
  return (db: Kysely<Database>, accountId: number): JsonPageReader | undefined =>
    db.getExecutor().adapter instanceof SqliteAdapter
      ? async (reverse, limit, offset) =>
          ((await (reverse ? backwards : forwards)(db, accountId, limit, offset))[0] as { page: string }).page
      : undefined;
}
