import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../db/schema.js';
import { paginate } from '../../shared/paging.js';
import { containsAny } from '../../shared/search.js';
import type { BookingListQuery, ChartOfAccountListQuery } from './chart-of-accounts.schemas.js';
import type { ChartOfAccountTable } from './chart-of-accounts.tables.js';

export type ChartOfAccountRow = Selectable<ChartOfAccountTable>;
type Db = Kysely<Database>;

export function findChartOfAccount(db: Db, accountId: number, id: number) {
  return db
    .selectFrom('chart_of_accounts')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function listChartOfAccounts(db: Db, accountId: number, q: ChartOfAccountListQuery) {
  let qb = db.selectFrom('chart_of_accounts').selectAll().where('account_id', '=', accountId);
  if (q.number !== undefined) qb = qb.where('number', '=', q.number);
  if (q.type !== undefined) qb = qb.where('type', '=', q.type);
  if (q.q) qb = qb.where((eb) => containsAny(eb, ['number', 'name'], q.q!));
  return paginate(qb.orderBy('id'), q);
}

export function listBookings(db: Db, accountId: number, q: BookingListQuery) {
  let qb = db
    .selectFrom('incoming_invoice_bookings as b')
    .innerJoin('incoming_invoices as i', 'i.id', 'b.incoming_invoice_id')
    .selectAll('b')
    .select('i.date')
    .where('b.account_id', '=', accountId);
  if (q.chart_of_account_id !== undefined) qb = qb.where('b.chart_of_account_id', '=', q.chart_of_account_id);
  if (q.incoming_invoice_id !== undefined) qb = qb.where('b.incoming_invoice_id', '=', q.incoming_invoice_id);
  if (q.date_from) qb = qb.where('i.date', '>=', q.date_from);
  if (q.date_to) qb = qb.where('i.date', '<=', q.date_to);
  return paginate(qb.orderBy('b.id'), q);
}
