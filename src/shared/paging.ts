import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  type Expression,
  type ExpressionBuilder,
  type Kysely,
  type SelectQueryBuilder,
  type SqlBool,
  sql,
} from 'kysely';
import { prepared } from '../db/prepared.js';
import type { Database } from '../db/schema.js';
import { invalidField } from './errors.js';
import type { JsonPageReader } from './json-pages.js';

export interface PageParams {
  page?: number;
  per_page?: number;
  /** Cursor paging: the `next` cursor of the previous page; empty: from the start. */
  after?: string;
  /** `sort=-date,id`: fields, `-` for descending (lists that declare `sortable`). */
  sort?: string;
}

export interface Page<T> {
  rows: T[];
  total: number;
  page: number;
  per_page: number;
  /** Set when the request paged by cursor: the cursor after the last row, null at the end. */
  next?: string | null;
  /** The rows as the answer's JSON array, written by the database (`jsonPages`); `rows` is empty then. */
  json?: string;
}

export const DEFAULT_PER_PAGE = 50;
export const MAX_PER_PAGE = 100;

export function pageOf(q: PageParams): { page: number; per_page: number } {
  return { page: q.page ?? 1, per_page: Math.min(q.per_page ?? DEFAULT_PER_PAGE, MAX_PER_PAGE) };
}

/** A field a list may be sorted by: its column (default: the field's name), and whether it can be null. */
export interface SortField {
  column?: string;
  nullable?: boolean;
}
export type Sortable = Record<string, SortField>;

export interface ListOptions {
  /** The fields `sort` accepts besides `id`; without it `sort` may only name `id`. */
  sortable?: Sortable;
  /** The id column (unique, the last tie-breaker of every order). */
  id?: string;
  /**
   * The exact total when it is known without counting (list_counts, for a list filtered by
   * nothing but the account and archived state); otherwise the filtered rows are counted.
   */
  total?: () => Promise<number>;
  /**
   * The pages of the unfiltered list in id order as prepared statements (`idPages`), used
   * with a kept `total` when neither `sort` nor `after` is given: the hot path builds no query.
   */
  pages?: PageReader;
  /** `pages` as the answer's JSON (shared/json-pages.ts), used in their place where given. */
  jsonPages?: JsonPageReader;
}

type PageReader = (reverse: boolean, limit: number, offset: number) => Promise<unknown[]>;

/**
 * Prepared statements for the pages of a list in id order, forwards and backwards. `build`
 * gives the filtered, unordered query for an account (see `prepared()` for what it may do
 * with its arguments).
 */
export function idPages(
  // biome-ignore lint/suspicious/noExplicitAny: any table's query
  build: (db: Kysely<Database>, accountId: number) => SelectQueryBuilder<any, any, any>,
  id = 'id',
) {
  const page = (desc: boolean) =>
    prepared(3, (db: Kysely<Database>, accountId: number, limit: number, offset: number) =>
      build(db, accountId)
        .orderBy(sql.ref(id), (ob) => (desc ? ob.desc() : ob.asc()))
        .limit(limit)
        .offset(offset),
    );
  const forwards = page(false);
  const backwards = page(true);
  return (db: Kysely<Database>, accountId: number): PageReader =>
    (reverse, limit, offset) =>
      (reverse ? backwards : forwards)(db, accountId, limit, offset);
}

// Parameters that choose the page or the order, or which of the two kept counts applies.
const NOT_FILTERS = new Set(['page', 'per_page', 'after', 'sort', 'archived', 'deleted']);

/** Whether a list query filters by nothing but what list_counts keeps apart. */
export const unfiltered = (q: object): boolean =>
  Object.entries(q).every(([k, v]) => v === undefined || NOT_FILTERS.has(k));

interface SortKey {
  field: string;
  column: string;
  /** The property of a result row holding the value. */
  key: string;
  desc: boolean;
  nullable: boolean;
}

// biome-ignore lint/suspicious/noExplicitAny: works on any table's query builder
type AnyQb = SelectQueryBuilder<any, any, any>;

/** The order a `sort` parameter names, validated, with the id as the last tie-breaker. */
export function sortKeys(sort: string | undefined, opts: ListOptions = {}): SortKey[] {
  const id = opts.id ?? 'id';
  const idKey = (desc: boolean): SortKey => ({
    field: 'id',
    column: id,
    key: lastPart(id),
    desc,
    nullable: false,
  });
  if (sort === undefined || sort === '') return [idKey(false)];
  const keys: SortKey[] = [];
  for (const part of sort.split(',')) {
    const desc = part.startsWith('-');
    const field = desc ? part.slice(1) : part;
    if (keys.some((k) => k.field === field)) throw invalidField('sort', `"${field}" is named twice`);
    if (field === 'id') {
      keys.push(idKey(desc));
      continue;
    }
    const spec = opts.sortable && Object.hasOwn(opts.sortable, field) ? opts.sortable[field] : undefined;
    if (!spec) {
      const allowed = ['id', ...Object.keys(opts.sortable ?? {})].join(', ');
      throw invalidField('sort', `cannot sort by "${field}" (sortable: ${allowed})`);
    }
    const column = spec.column ?? field;
    keys.push({ field, column, key: lastPart(column), desc, nullable: spec.nullable ?? false });
  }
  if (!keys.some((k) => k.field === 'id')) keys.push(idKey(false));
  return keys;
}

const lastPart = (column: string) => column.slice(column.lastIndexOf('.') + 1);

/**
 * Orders by the keys. Nulls sort as the largest values on both databases (last ascending,
 * first descending), so SQLite and PostgreSQL answer alike.
 */
function ordered(qb: AnyQb, keys: SortKey[], reverse: boolean): AnyQb {
  let q = qb;
  for (const k of keys) {
    const desc = k.desc !== reverse;
    q = k.nullable
      ? q.orderBy(sql.ref(k.column), (ob) => (desc ? ob.desc().nullsFirst() : ob.asc().nullsLast()))
      : q.orderBy(sql.ref(k.column), (ob) => (desc ? ob.desc() : ob.asc()));
  }
  return q;
}

type Value = string | number | null;

/** The opaque cursor after a row: its sort values, base64url JSON. */
function cursorOf(row: Record<string, unknown>, keys: SortKey[]): string {
  return Buffer.from(JSON.stringify(keys.map((k) => row[k.key] ?? null))).toString('base64url');
}

function parseCursor(after: string, keys: SortKey[]): Value[] {
  let values: unknown;
  try {
    values = JSON.parse(Buffer.from(after, 'base64url').toString('utf8'));
  } catch {
    values = undefined;
  }
  const ok =
    Array.isArray(values) &&
    values.length === keys.length &&
    values.every((v, i) =>
      keys[i]!.field === 'id'
        ? Number.isSafeInteger(v)
        : v === null
          ? keys[i]!.nullable
          : typeof v === 'string' || typeof v === 'number',
    );
  if (!ok) throw invalidField('after', 'is not a cursor of this list in this sort order');
  return values as Value[];
}

// biome-ignore lint/suspicious/noExplicitAny: any table
type AnyEb = ExpressionBuilder<any, any>;

/** Rows that come after the cursor's row in the order of `keys` (nulls being the largest). */
function afterCursor(eb: AnyEb, keys: SortKey[], values: Value[], i = 0): Expression<SqlBool> {
  const k = keys[i]!;
  const v = values[i]!;
  const ref = sql.ref(k.column);
  const isNull = sql<SqlBool>`${ref} is null`;
  // Strictly after on this key, and equal on it.
  let beyond: Expression<SqlBool> | undefined;
  let equal: Expression<SqlBool>;
  if (v === null) {
    beyond = k.desc ? sql<SqlBool>`${ref} is not null` : undefined;
    equal = isNull;
  } else {
    const cmp = k.desc ? sql<SqlBool>`${ref} < ${v}` : sql<SqlBool>`${ref} > ${v}`;
    beyond = k.nullable && !k.desc ? eb.or([cmp, isNull]) : cmp;
    equal = sql<SqlBool>`${ref} = ${v}`;
  }
  if (i === keys.length - 1) return beyond ?? sql<SqlBool>`1 = 0`;
  const deeper = eb.and([equal, afterCursor(eb, keys, values, i + 1)]);
  const after = beyond ? eb.or([beyond, deeper]) : deeper;
  // The same rows, bounded on the first key as well: neither database reads an index range
  // out of the OR alone, and a page deep in a sorted list would scan to its cursor (SQLite,
  // sort=name at 100,000 clients: 30-60 ms instead of 1). Not where nulls follow the value.
  if (i > 0 || v === null || (k.nullable && !k.desc)) return after;
  return eb.and([k.desc ? sql<SqlBool>`${ref} <= ${v}` : sql<SqlBool>`${ref} >= ${v}`, after]);
}

function countOf(qb: AnyQb): Promise<number> {
  return qb
    .clearSelect()
    .clearOrderBy()
    .select((eb) => eb.fn.countAll().as('total'))
    .executeTakeFirst()
    .then((r) => Number(r?.total ?? 0));
}

/**
 * Runs a filtered query as one page plus the total. The caller has applied tenant scoping and
 * filters.
 *
 * Without `options` (lists that keep their own order) the query is already ordered and pages
 * by number only. With `options` the query must not be ordered yet: the list takes `sort`
 * and `after`, and reads a page in the second half of the list backwards from its end, so the
 * last page costs what the first does.
 */
export async function paginate<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O> | (() => SelectQueryBuilder<DB, TB, O>),
  params: PageParams,
  options?: ListOptions,
): Promise<Page<O>> {
  const { page, per_page } = pageOf(params);
  // A query given as a function is built only when a page or the total needs it: the kept
  // total with the prepared pages (the unfiltered list) needs none.
  let built: SelectQueryBuilder<DB, TB, O> | undefined;
  const queryOf = () => {
    built ??= typeof query === 'function' ? query() : query;
    return built;
  };
  if (!options) {
    const qb = queryOf();
    const [rows, total] = await Promise.all([
      qb
        .limit(per_page)
        .offset((page - 1) * per_page)
        .execute(),
      countOf(qb as AnyQb),
    ]);
    return { rows, total, page, per_page };
  }
  const q = () => queryOf() as AnyQb;
  const keys = sortKeys(params.sort, options);
  const counted = () => (options.total ? options.total() : countOf(q()));

  if (params.after !== undefined) {
    const values = params.after === '' ? undefined : parseCursor(params.after, keys);
    // The next cursor reads the sort values from the last row, whatever the list selects.
    let from = keys.reduce(
      (acc, k) => (k.field === 'id' ? acc : acc.select(sql.ref(k.column).as(k.key))),
      q(),
    );
    if (values) from = from.where((eb) => afterCursor(eb, keys, values));
    const [rows, total] = await Promise.all([
      ordered(from, keys, false)
        .limit(per_page + 1)
        .execute(),
      counted(),
    ]);
    const more = rows.length > per_page;
    if (more) rows.pop();
    return { rows, total, page, per_page, next: more ? cursorOf(rows[rows.length - 1], keys) : null };
  }

  const offset = (page - 1) * per_page;
  const idOrder = options.pages && options.total && !params.sort;
  // A JSON page is in ascending order whichever way it was read.
  const read: (reverse: boolean, limit: number, skip: number) => Promise<unknown[] | string> =
    idOrder && options.jsonPages
      ? options.jsonPages
      : idOrder
        ? options.pages!
        : (reverse, limit, skip) => ordered(q(), keys, reverse).limit(limit).offset(skip).execute();
  const answer = (got: unknown[] | string, total: number, reversed = false): Page<O> =>
    typeof got === 'string'
      ? { rows: [], json: got, total, page, per_page }
      : { rows: (reversed ? got.reverse() : got) as O[], total, page, per_page };
  if (page === 1) {
    const [got, total] = await Promise.all([read(false, per_page, 0), counted()]);
    return answer(got, total);
  }
  const total = await counted();
  if (offset < total / 2) return answer(await read(false, per_page, offset), total);
  // From the end: skip what follows this page instead of what precedes it.
  const fromEnd = total - offset - per_page;
  const limit = per_page + Math.min(0, fromEnd);
  if (limit <= 0) return { rows: [], total, page, per_page };
  return answer(await read(true, limit, Math.max(0, fromEnd)), total, true);
}

interface ListBody<R> {
  data: R[];
  meta: { page?: number; per_page: number; total: number };
}

/**
 * `{ data, meta }` plus an RFC 8288 Link header. Paged by number: first/prev/next/last by
 * page. Paged by cursor (`after`): `next` carries the cursor after the last row (none at the
 * end), `first` and `last` are pages, and `meta` has no page number.
 *
 * A page the database wrote as JSON (`Page.json`) is answered as the serialized body itself:
 * a string, which Fastify sends as it is; typed as the object it is the serialization of.
 */
export function listResponse<T, R>(
  req: FastifyRequest,
  reply: FastifyReply,
  page: Page<T>,
  map: (row: T) => R,
): ListBody<R> {
  const last = Math.max(1, Math.ceil(page.total / page.per_page));
  const url = new URL(req.url, 'http://x');
  const byCursor = page.next !== undefined;
  if (byCursor) url.searchParams.delete('after');
  const link = (p: number, rel: string) => {
    url.searchParams.set('page', String(p));
    url.searchParams.set('per_page', String(page.per_page));
    return `<${url.pathname}${url.search}>; rel="${rel}"`;
  };
  const links = [link(1, 'first')];
  if (byCursor) {
    if (page.next) {
      const next = new URL(req.url, 'http://x');
      next.searchParams.delete('page');
      next.searchParams.set('per_page', String(page.per_page));
      next.searchParams.set('after', page.next);
      links.push(`<${next.pathname}${next.search}>; rel="next"`);
    }
  } else {
    if (page.page > 1) links.push(link(Math.min(page.page - 1, last), 'prev'));
    if (page.page < last) links.push(link(page.page + 1, 'next'));
  }
  links.push(link(last, 'last'));
  reply.header('link', links.join(', '));
  const meta = byCursor
    ? { per_page: page.per_page, total: page.total }
    : { page: page.page, per_page: page.per_page, total: page.total };
  if (page.json !== undefined) {
    // The bytes the serializer writes for `{ data, meta }`: required fields first, so the
    // optional `page` last.
    const number = byCursor ? '' : `,"page":${page.page}`;
    reply.type('application/json; charset=utf-8');
    const body = `{"data":${page.json},"meta":{"per_page":${page.per_page},"total":${page.total}${number}}}`;
    return body as unknown as ListBody<R>;
  }
  return { data: page.rows.map(map), meta };
}
