import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database } from '../../db/schema.js';
import { paginate } from '../../shared/paging.js';
import { toIso } from '../../shared/time.js';
import type { PaymentAccountListQuery, PaymentListQuery } from './payments.schemas.js';
import type { PaymentAccountTable, PaymentTable } from './payments.tables.js';

export type PaymentRow = Selectable<PaymentTable>;
export type PaymentAccountRow = Selectable<PaymentAccountTable>;
type Db = Kysely<Database>;

export function listPaymentAccounts(db: Db, accountId: number, q: PaymentAccountListQuery) {
  let qb = db.selectFrom('payment_accounts').selectAll().where('account_id', '=', accountId);
  if (q.type) qb = qb.where('type', '=', q.type);
  if (q.updated_since) qb = qb.where('updated_at', '>=', toIso(q.updated_since));
  return paginate(qb.orderBy('id'), q);
}

export function findPaymentAccount(db: Db, accountId: number, id: number) {
  return db
    .selectFrom('payment_accounts')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function listPayments(db: Db, accountId: number, q: PaymentListQuery) {
  let qb = db.selectFrom('payments').selectAll().where('account_id', '=', accountId);
  if (q.id !== undefined) qb = qb.where('id', '=', q.id);
  if (q.type) qb = qb.where('type', '=', q.type);
  if (q.invoice_id !== undefined) qb = qb.where('invoice_id', '=', q.invoice_id);
  if (q.credit_id !== undefined) qb = qb.where('credit_id', '=', q.credit_id);
  if (q.payment_account_id !== undefined) qb = qb.where('payment_account_id', '=', q.payment_account_id);
  if (q.date_from) qb = qb.where('date', '>=', q.date_from);
  if (q.date_to) qb = qb.where('date', '<=', q.date_to);
  if (q.updated_since) qb = qb.where('updated_at', '>=', toIso(q.updated_since));
  return paginate(qb.orderBy('id'), q);
}

export function insertPayment(db: Db, values: Insertable<PaymentTable>): Promise<PaymentRow> {
  return db.insertInto('payments').values(values).returningAll().executeTakeFirstOrThrow();
}

export function creditUse(db: Db, accountId: number, creditId: number) {
  return db
    .selectFrom('payments')
    .select(['id', 'invoice_id'])
    .where('account_id', '=', accountId)
    .where('credit_id', '=', creditId)
    .executeTakeFirst();
}
