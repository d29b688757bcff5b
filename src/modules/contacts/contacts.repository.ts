import { type Insertable, type Selectable, sql, type Updateable } from 'kysely';
import { type Db, isPostgres } from '../../db/index.js';
import { jsonIdPages, jsonShape, storedObject } from '../../shared/json-pages.js';
import { keptTotal } from '../../shared/list-counts.js';
import { findOwned, insertReturning, updateOwned } from '../../shared/owned.js';
import { idPages, paginate, type Sortable, unfiltered } from '../../shared/paging.js';
import { fold } from '../../shared/search.js';
import { toIso } from '../../shared/time.js';
import { idsContaining } from '../companies/companies.public.js';
import { Contact, type ContactListQuery } from './contacts.schemas.js';
import type { ContactTable } from './contacts.tables.js';

export type ContactRow = Selectable<ContactTable>;

/** The folded search column of a contact: "first last", a line break, the email. */
export function contactSearch(c: { first_name?: string | null; last_name: string; email?: string | null }) {
  const name = [c.first_name, c.last_name].filter(Boolean).join(' ');
  return { search_text: `${fold(name)}\n${fold(c.email)}` };
}

export const findContact = (db: Db, accountId: number, id: number) =>
  findOwned(db, 'contacts', accountId, id);

/** The account's contact holding this external id, if any. */
export function findContactByExternalId(
  db: Db,
  accountId: number,
  externalId: string,
): Promise<ContactRow | undefined> {
  return db
    .selectFrom('contacts')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('external_id', '=', externalId)
    .executeTakeFirst();
}

export const CONTACT_SORTABLE: Sortable = {
  last_name: {},
  first_name: { nullable: true },
  company_id: { nullable: true },
  city: { nullable: true },
};

const CONTACT_COLUMNS = [
  'id',
  'account_id',
  'company_id',
  'external_id',
  'salutation',
  'title',
  'first_name',
  'last_name',
  'email',
  'phone',
  'mobile',
  'position',
  'department',
  'street',
  'zip',
  'city',
  'country_code',
  'notes',
  'custom_fields',
  'archived_at',
  'created_at',
  'updated_at',
] as const;

// The unfiltered list's pages, prepared: active rows and all.
const PAGES = [false, true].map((archived) =>
  idPages((db, accountId) => {
    const qb = db.selectFrom('contacts').where('account_id', '=', accountId);
    return (archived ? qb : qb.where('archived_at', 'is', null)).select(CONTACT_COLUMNS);
  }),
);

// The same pages as the answer's JSON (SQLite): what toContact makes of a row.
const JSON_PAGES = [false, true].map((archived) =>
  jsonIdPages(
    (db, accountId) => {
      const qb = db.selectFrom('contacts').where('account_id', '=', accountId);
      return (archived ? qb : qb.where('archived_at', 'is', null)).select(CONTACT_COLUMNS);
    },
    jsonShape(Contact, { custom_fields: storedObject('custom_fields') }),
  ),
);

export async function listContacts(db: Db, accountId: number, q: ContactListQuery) {
  // A union of two index lookups (own text; contacts of companies whose name matches) rather
  // than an OR, which neither database can answer from the indexes. It runs once: the page
  // and the count then filter by the ids it found.
  let found: number[] | undefined;
  if (q.q) {
    const own = idsContaining(db, accountId, 'contacts', 'search_text', q.q);
    const byCompany = idsContaining(db, accountId, 'companies', 'search_name', q.q);
    const { rows } = await sql<
      Record<string, number>
    >`${own} union select c2.id from contacts c2 where c2.company_id in (${byCompany})`.execute(db);
    // The one column is `rowid` or `id`, depending on the database.
    found = rows.map((r) => Number(Object.values(r)[0]));
  }
  // Built only when `paginate` needs it (the prepared pages of the unfiltered list need none);
  // every column the answer shows, not the search column.
  const query = () => {
    let qb = db.selectFrom('contacts').where('account_id', '=', accountId);
    if (!q.archived) qb = qb.where('archived_at', 'is', null);
    if (q.external_id !== undefined) qb = qb.where('external_id', '=', q.external_id);
    if (q.company_id !== undefined) qb = qb.where('company_id', '=', q.company_id);
    if (q.updated_since) qb = qb.where('updated_at', '>=', toIso(q.updated_since));
    if (found) {
      const ids = found;
      qb = qb.where(
        isPostgres(db)
          ? sql<boolean>`${sql.ref('contacts.id')} = any(${ids}::int[])`
          : sql<boolean>`${sql.ref('contacts.id')} in (select value from json_each(${JSON.stringify(ids)}))`,
      );
    }
    return qb.select(CONTACT_COLUMNS);
  };
  return paginate(query, q, {
    sortable: CONTACT_SORTABLE,
    total: unfiltered(q) ? keptTotal(db, accountId, 'contacts', Boolean(q.archived)) : undefined,
    pages: PAGES[q.archived ? 1 : 0]!(db, accountId),
    jsonPages: JSON_PAGES[q.archived ? 1 : 0]!(db, accountId),
  });
}

export const insertContact = (
  db: Db,
  values: Omit<Insertable<ContactTable>, 'search_text'>,
): Promise<ContactRow> => insertReturning(db, 'contacts', { ...values, ...contactSearch(values) });

export const updateContact = (db: Db, accountId: number, id: number, values: Updateable<ContactTable>) =>
  updateOwned(db, 'contacts', accountId, id, values);
