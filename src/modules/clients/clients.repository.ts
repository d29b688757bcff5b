import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../db/index.js';
import { prepared } from '../../db/prepared.js';
import { jsonIdPages, jsonShape } from '../../shared/json-pages.js';
import { keptTotal } from '../../shared/list-counts.js';
import { insertOne, insertRowsReturning, updateOwned } from '../../shared/owned.js';
import { idPages, paginate, type Sortable } from '../../shared/paging.js';
import { containsIndexed } from '../../shared/search.js';
import { toIso } from '../../shared/time.js';
import { ClientBasic, ClientFull, type ClientListQuery } from './clients.schemas.js';
import type { ClientTable } from './clients.tables.js';

export type ClientRow = Selectable<ClientTable>;
export type ClientBasicRow = Pick<ClientRow, 'id' | 'name' | 'shortcode' | 'archived_at'>;

export const CLIENT_SORTABLE: Sortable = { name: {}, shortcode: { nullable: true } };

const byId = prepared(2, (db: Db, accountId: number, id: number) =>
  db.selectFrom('clients').selectAll().where('account_id', '=', accountId).where('id', '=', id),
);

export async function findClient(db: Db, accountId: number, id: number): Promise<ClientRow | undefined> {
  return (await byId(db, accountId, id))[0];
}

export function findClientBy(
  db: Db,
  accountId: number,
  column: 'external_id' | 'shortcode',
  value: string,
): Promise<ClientRow | undefined> {
  return db
    .selectFrom('clients')
    .selectAll()
    .where('account_id', '=', accountId)
    .where(column, '=', value)
    .executeTakeFirst();
}

/**
 * The filtered query, built only when `paginate` needs it (the prepared pages of the
 * unfiltered list need none), and the list's options.
 */
function listQuery(db: Db, accountId: number, q: ClientListQuery) {
  const qb = () => {
    let qb = db.selectFrom('clients').where('account_id', '=', accountId);
    if (!q.archived) qb = qb.where('archived_at', 'is', null);
    if (q.external_id !== undefined) qb = qb.where('external_id', '=', q.external_id);
    if (q.shortcode !== undefined) qb = qb.where('shortcode', '=', q.shortcode);
    if (q.updated_since) qb = qb.where('updated_at', '>=', toIso(q.updated_since));
    if (q.q) qb = qb.where(containsIndexed(db, 'clients', ['name', 'shortcode', 'email'], q.q));
    return qb;
  };
  const filtered =
    q.external_id !== undefined || q.shortcode !== undefined || q.updated_since !== undefined || Boolean(q.q);
  const options = {
    sortable: CLIENT_SORTABLE,
    total: filtered ? undefined : keptTotal(db, accountId, 'clients', Boolean(q.archived)),
  };
  return { qb, options };
}

const BASIC = ['id', 'name', 'shortcode', 'archived_at'] as const;

// The unfiltered lists' pages, prepared: active clients and all, basic and full.
const pagesOf = (archived: boolean, full: boolean) =>
  idPages((db, accountId) => {
    const qb = db.selectFrom('clients').where('account_id', '=', accountId);
    const scoped = archived ? qb : qb.where('archived_at', 'is', null);
    return full ? scoped.selectAll() : scoped.select(BASIC);
  });
const PAGES = {
  basic: [pagesOf(false, false), pagesOf(true, false)],
  full: [pagesOf(false, true), pagesOf(true, true)],
};

// The same pages as the answers' JSON (SQLite): what toClientBasic and toClientFull make of a row.
const FLAGS = { is_consumer: { flag: 'is_consumer' }, dunning_blocked: { flag: 'dunning_blocked' } };
const jsonPagesOf = (archived: boolean, full: boolean) =>
  jsonIdPages(
    (db, accountId) => {
      const qb = db.selectFrom('clients').where('account_id', '=', accountId);
      const scoped = archived ? qb : qb.where('archived_at', 'is', null);
      return full ? scoped.selectAll() : scoped.select(BASIC);
    },
    full ? jsonShape(ClientFull, FLAGS) : jsonShape(ClientBasic),
  );
const JSON_PAGES = {
  basic: [jsonPagesOf(false, false), jsonPagesOf(true, false)],
  full: [jsonPagesOf(false, true), jsonPagesOf(true, true)],
};

/** The basic form (`GET /clients`): the list reads no more columns than it returns. */
export function listClientsBasic(db: Db, accountId: number, q: ClientListQuery) {
  const { qb, options } = listQuery(db, accountId, q);
  const pages = PAGES.basic[q.archived ? 1 : 0]!(db, accountId);
  const jsonPages = JSON_PAGES.basic[q.archived ? 1 : 0]!(db, accountId);
  return paginate(() => qb().select(BASIC), q, { ...options, pages, jsonPages });
}

export function listClientsFull(db: Db, accountId: number, q: ClientListQuery) {
  const { qb, options } = listQuery(db, accountId, q);
  const pages = PAGES.full[q.archived ? 1 : 0]!(db, accountId);
  const jsonPages = JSON_PAGES.full[q.archived ? 1 : 0]!(db, accountId);
  return paginate(() => qb().selectAll(), q, { ...options, pages, jsonPages });
}

export const insertClient = (db: Db, values: Insertable<ClientTable>): Promise<ClientRow> =>
  insertOne(db, 'clients', values);

/** Several new clients in one statement (or a few), answered in the order given. */
export const insertClients = (db: Db, values: readonly Insertable<ClientTable>[]): Promise<ClientRow[]> =>
  insertRowsReturning(db, 'clients', values);

export const updateClient = (db: Db, accountId: number, id: number, values: Updateable<ClientTable>) =>
  updateOwned(db, 'clients', accountId, id, values);
