import { type Insertable, type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import type { Database } from '../../db/schema.js';
import { paginate } from '../../shared/paging.js';
import { fold } from '../../shared/search.js';
import { toIso } from '../../shared/time.js';
import { idsContaining } from '../companies/contact-data.js';
import type { ContactListQuery } from './contacts.schemas.js';
import type { ContactTable } from './contacts.tables.js';

export type ContactRow = Selectable<ContactTable>;
type Db = Kysely<Database>;

/** The folded search column of a contact: "first last", a line break, the email. */
export function contactSearch(c: { first_name?: string | null; last_name: string; email?: string | null }) {
  const name = [c.first_name, c.last_name].filter(Boolean).join(' ');
  return { search_text: `${fold(name)}\n${fold(c.email)}` };
}

export function findContact(db: Db, accountId: number, id: number): Promise<ContactRow | undefined> {
  return db
    .selectFrom('contacts')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

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

export function listContacts(db: Db, accountId: number, q: ContactListQuery) {
  let qb = db.selectFrom('contacts').selectAll().where('account_id', '=', accountId);
  if (!q.archived) qb = qb.where('archived_at', 'is', null);
  if (q.external_id !== undefined) qb = qb.where('external_id', '=', q.external_id);
  if (q.company_id !== undefined) qb = qb.where('company_id', '=', q.company_id);
  if (q.updated_since) qb = qb.where('updated_at', '>=', toIso(q.updated_since));
  if (q.q) {
    // A union of two index lookups (own text; contacts of companies whose name matches)
    // rather than an OR, which neither database can answer from the indexes.
    const own = idsContaining(db, accountId, 'contacts', 'search_text', q.q);
    const byCompany = idsContaining(db, accountId, 'companies', 'search_name', q.q);
    qb = qb.where(
      sql<boolean>`${sql.ref('contacts.id')} in (${own} union select c2.id from contacts c2 where c2.company_id in (${byCompany}))`,
    );
  }
  return paginate(qb.orderBy('id'), q);
}

export function insertContact(
  db: Db,
  values: Omit<Insertable<ContactTable>, 'search_text'>,
): Promise<ContactRow> {
  return db
    .insertInto('contacts')
    .values({ ...values, ...contactSearch(values) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function updateContact(
  db: Db,
  accountId: number,
  id: number,
  values: Updateable<ContactTable>,
): Promise<ContactRow | undefined> {
  return db
    .updateTable('contacts')
    .set(values)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}
