import { type Insertable, type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import type { Database } from '../../db/schema.js';
import { keptTotal } from '../../shared/list-counts.js';
import { paginate, unfiltered } from '../../shared/paging.js';
import { fold } from '../../shared/search.js';
import { toIso } from '../../shared/time.js';
import type { CompanyListQuery } from './companies.schemas.js';
import type { CompanyTable } from './companies.tables.js';
import { idsContaining } from './contact-data.js';

export type CompanyRow = Selectable<CompanyTable>;
type Db = Kysely<Database>;

/** The folded search columns of a company, from the fields they are made of. */
export function companySearch(c: { name: string; email?: string | null }) {
  return { search_name: fold(c.name), search_text: `${fold(c.name)}\n${fold(c.email)}` };
}

export function findCompany(db: Db, accountId: number, id: number): Promise<CompanyRow | undefined> {
  return db
    .selectFrom('companies')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function findCompanyByExternalId(
  db: Db,
  accountId: number,
  externalId: string,
): Promise<CompanyRow | undefined> {
  return db
    .selectFrom('companies')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('external_id', '=', externalId)
    .executeTakeFirst();
}

export function listCompanies(db: Db, accountId: number, q: CompanyListQuery) {
  let qb = db.selectFrom('companies').selectAll().where('account_id', '=', accountId);
  if (!q.archived) qb = qb.where('archived_at', 'is', null);
  if (q.external_id !== undefined) qb = qb.where('external_id', '=', q.external_id);
  if (q.updated_since) qb = qb.where('updated_at', '>=', toIso(q.updated_since));
  if (q.q)
    qb = qb.where(
      sql<boolean>`${sql.ref('companies.id')} in (${idsContaining(db, accountId, 'companies', 'search_text', q.q)})`,
    );
  return paginate(qb, q, {
    sortable: { name: {}, city: { nullable: true }, country_code: { nullable: true } },
    total: unfiltered(q) ? keptTotal(db, accountId, 'companies', Boolean(q.archived)) : undefined,
  });
}

export function insertCompany(
  db: Db,
  values: Omit<Insertable<CompanyTable>, 'search_name' | 'search_text'>,
): Promise<CompanyRow> {
  return db
    .insertInto('companies')
    .values({ ...values, ...companySearch(values) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function updateCompany(
  db: Db,
  accountId: number,
  id: number,
  values: Updateable<CompanyTable>,
): Promise<CompanyRow | undefined> {
  return db
    .updateTable('companies')
    .set(values)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}
