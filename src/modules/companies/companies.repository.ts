import { type Insertable, type RawBuilder, type Selectable, sql, type Updateable } from 'kysely';
import { type Db, isPostgres } from '../../db/index.js';
import { keptTotal } from '../../shared/list-counts.js';
import { findOwned, insertReturning, updateOwned } from '../../shared/owned.js';
import { paginate, unfiltered } from '../../shared/paging.js';
import { fold } from '../../shared/search.js';
import { toIso } from '../../shared/time.js';
import type { CompanyListQuery } from './companies.schemas.js';
import type { CompanyTable } from './companies.tables.js';

export type CompanyRow = Selectable<CompanyTable>;

/**
 * Ids of the account's `table` rows whose folded `column` contains `term`, as a bare SELECT
 * (parenthesise it; bare so that it can be a UNION member on SQLite). The substring search of
 * the CRM tables: companies use it, contacts through companies.public.ts (for their own table,
 * and for companies by name).
 * - PostgreSQL: LIKE with the wildcards escaped, answered by the pg_trgm GIN index.
 * - SQLite: an FTS5 phrase query on the trigram table. A phrase of trigrams matches exactly the
 *   rows that contain the term, and unlike LIKE/GLOB on the FTS table it needs no per-row
 *   re-check against the base table (10x faster for common terms). Terms shorter than a
 *   trigram have no index to use: they scan the account's rows (GLOB, wildcards escaped).
 */
export function idsContaining(
  db: Db,
  accountId: number,
  table: 'contacts' | 'companies',
  column: 'search_text' | 'search_name',
  term: string,
): RawBuilder<number> {
  const folded = fold(term);
  if (isPostgres(db)) {
    const pattern = `%${folded.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return sql<number>`select id from ${sql.table(table)} where account_id = ${accountId} and ${sql.ref(column)} like ${pattern} escape '\\'`;
  }
  if ([...folded].length >= 3) {
    const phrase = `${column} : "${folded.replace(/"/g, '""')}"`;
    return sql<number>`select rowid from ${sql.table(`${table}_fts`)} where ${sql.table(`${table}_fts`)} match ${phrase}`;
  }
  const pattern = `*${folded.replace(/[*?[]/g, (c) => `[${c}]`)}*`;
  return sql<number>`select id from ${sql.table(table)} where account_id = ${accountId} and ${sql.ref(column)} glob ${pattern}`;
}

/** The folded search columns of a company, from the fields they are made of. */
export function companySearch(c: { name: string; email?: string | null }) {
  return { search_name: fold(c.name), search_text: `${fold(c.name)}\n${fold(c.email)}` };
}

export const findCompany = (db: Db, accountId: number, id: number) =>
  findOwned(db, 'companies', accountId, id);

/** The account's company holding this external id, if any. */
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

export const insertCompany = (
  db: Db,
  values: Omit<Insertable<CompanyTable>, 'search_name' | 'search_text'>,
): Promise<CompanyRow> => insertReturning(db, 'companies', { ...values, ...companySearch(values) });

export const updateCompany = (db: Db, accountId: number, id: number, values: Updateable<CompanyTable>) =>
  updateOwned(db, 'companies', accountId, id, values);
