import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/index.js';
import { findOwned, insertReturning } from '../../shared/owned.js';
import { paginate } from '../../shared/paging.js';
import { containsAny } from '../../shared/search.js';
import type { BankStatementListQuery, BankTransactionListQuery } from './banking.schemas.js';
import type {
  BankCsvProfileTable,
  BankMatchTable,
  BankStatementTable,
  BankTransactionTable,
} from './banking.tables.js';

export type BankStatementRow = Selectable<BankStatementTable>;
export type BankTransactionRow = Selectable<BankTransactionTable>;
export type BankMatchRow = Selectable<BankMatchTable>;
export type BankCsvProfileRow = Selectable<BankCsvProfileTable>;

export const insertCsvProfile = (db: Db, values: Insertable<BankCsvProfileTable>) =>
  insertReturning(db, 'bank_csv_profiles', values);

export const findCsvProfile = (db: Db, accountId: number, id: number) =>
  findOwned(db, 'bank_csv_profiles', accountId, id);

export function listCsvProfiles(db: Db, accountId: number, q: { page?: number; per_page?: number }) {
  return paginate(
    db.selectFrom('bank_csv_profiles').selectAll().where('account_id', '=', accountId).orderBy('id'),
    q,
  );
}

export const insertStatement = (db: Db, values: Insertable<BankStatementTable>) =>
  insertReturning(db, 'bank_statements', values);

export const findStatement = (db: Db, accountId: number, id: number) =>
  findOwned(db, 'bank_statements', accountId, id);

export const findTransaction = (db: Db, accountId: number, id: number) =>
  findOwned(db, 'bank_transactions', accountId, id);

/** Row-locked on PostgreSQL: two matches of one line cannot run together. */
export function lockTransaction(db: Db, accountId: number, id: number, pg: boolean) {
  let qb = db
    .selectFrom('bank_transactions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id);
  if (pg) qb = qb.forUpdate();
  return qb.executeTakeFirst();
}

export function updateStatement(
  db: Db,
  id: number,
  values: { entries_new: number; entries_known: number; matched: number },
) {
  return db.updateTable('bank_statements').set(values).where('id', '=', id).execute();
}

/**
 * Inserts the entries that are not stored yet (the unique identity index decides, so that
 * concurrent imports of overlapping files cannot both insert a line); returns the new rows.
 */
export async function insertNewTransactions(
  db: Db,
  rows: Insertable<BankTransactionTable>[],
): Promise<BankTransactionRow[]> {
  const out: BankTransactionRow[] = [];
  // 23 columns a row: well under both databases' parameter limits.
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500);
    const inserted = await db
      .insertInto('bank_transactions')
      .values(chunk)
      .onConflict((oc) => oc.columns(['payment_account_id', 'identity']).doNothing())
      .returningAll()
      .execute();
    out.push(...inserted);
  }
  return out.sort((a, b) => a.id - b.id);
}

export function setTransactionStatus(db: Db, accountId: number, id: number, status: string, now: string) {
  return db
    .updateTable('bank_transactions')
    .set({ status, updated_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .execute();
}

export function setTransactionsStatus(
  db: Db,
  accountId: number,
  ids: readonly number[],
  status: string,
  now: string,
) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .updateTable('bank_transactions')
    .set({ status, updated_at: now })
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .execute();
}

export function insertMatches(db: Db, rows: Insertable<BankMatchTable>[]) {
  return rows.length === 0 ? Promise.resolve([]) : db.insertInto('bank_matches').values(rows).execute();
}

export function matchesOf(db: Db, accountId: number, transactionIds: number[]): Promise<BankMatchRow[]> {
  if (transactionIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('bank_matches')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('transaction_id', 'in', transactionIds)
    .orderBy('id')
    .execute();
}

export function deleteMatchesOf(db: Db, accountId: number, transactionId: number) {
  return db
    .deleteFrom('bank_matches')
    .where('account_id', '=', accountId)
    .where('transaction_id', '=', transactionId)
    .execute();
}

export function deleteMatches(db: Db, accountId: number, ids: readonly number[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .deleteFrom('bank_matches')
    .where('account_id', '=', accountId)
    .where('id', 'in', [...ids])
    .execute();
}

export function listStatements(db: Db, accountId: number, q: BankStatementListQuery) {
  let qb = db.selectFrom('bank_statements').selectAll().where('account_id', '=', accountId);
  if (q.payment_account_id !== undefined) qb = qb.where('payment_account_id', '=', q.payment_account_id);
  return paginate(qb.orderBy('id'), q);
}

export function listTransactions(
  db: Db,
  accountId: number,
  q: BankTransactionListQuery & { amount_min_cents?: number; amount_max_cents?: number },
) {
  let qb = db.selectFrom('bank_transactions').selectAll().where('account_id', '=', accountId);
  if (q.payment_account_id !== undefined) qb = qb.where('payment_account_id', '=', q.payment_account_id);
  if (q.statement_id !== undefined) qb = qb.where('statement_id', '=', q.statement_id);
  if (q.status !== undefined) qb = qb.where('status', '=', q.status);
  if (q.date_from !== undefined) qb = qb.where('booking_date', '>=', q.date_from);
  if (q.date_to !== undefined) qb = qb.where('booking_date', '<=', q.date_to);
  if (q.amount_min_cents !== undefined) qb = qb.where('amount', '>=', q.amount_min_cents);
  if (q.amount_max_cents !== undefined) qb = qb.where('amount', '<=', q.amount_max_cents);
  if (q.q)
    qb = qb.where((eb) =>
      containsAny(eb, ['remittance', 'counterparty_name', 'counterparty_iban', 'end_to_end_id'], q.q!),
    );
  return paginate(qb.orderBy('id'), q);
}

/** Transactions of a statement (its new ones, in order). */
export function transactionsOfStatement(db: Db, accountId: number, statementId: number) {
  return db
    .selectFrom('bank_transactions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('statement_id', '=', statementId)
    .orderBy('id')
    .execute();
}
