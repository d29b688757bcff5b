import { type Insertable, type Selectable, sql, type Updateable } from 'kysely';
import { type Db, isPostgres } from '../../db/index.js';
import { findOwned, insertReturning, updateOwned } from '../../shared/owned.js';
import { paginate } from '../../shared/paging.js';
import { toIso } from '../../shared/time.js';
import type { PaymentAccountListQuery } from './payments.schemas.js';
import type { PaymentAccountTable, PaymentTable } from './payments.tables.js';

export type PaymentRow = Selectable<PaymentTable>;
export type PaymentAccountRow = Selectable<PaymentAccountTable>;

export function listPaymentAccounts(db: Db, accountId: number, q: PaymentAccountListQuery) {
  let qb = db.selectFrom('payment_accounts').selectAll().where('account_id', '=', accountId);
  if (q.type) qb = qb.where('type', '=', q.type);
  if (q.updated_since) qb = qb.where('updated_at', '>=', toIso(q.updated_since));
  return paginate(qb.orderBy('id'), q);
}

export function insertPaymentAccount(db: Db, values: Insertable<PaymentAccountTable>) {
  return db.insertInto('payment_accounts').values(values).returning('id').executeTakeFirstOrThrow();
}

export const insertPaymentAccountRow = (db: Db, values: Insertable<PaymentAccountTable>) =>
  insertReturning(db, 'payment_accounts', values);

export const updatePaymentAccount = (
  db: Db,
  accountId: number,
  id: number,
  values: Updateable<PaymentAccountTable>,
) => updateOwned(db, 'payment_accounts', accountId, id, values);

/** The payment accounts of an account with this IBAN (electronic form). */
export function paymentAccountsByIban(db: Db, accountId: number, iban: string) {
  return db
    .selectFrom('payment_accounts')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('iban', '=', iban)
    .orderBy('id')
    .execute();
}

/** Deletes outgoing payments by id (a bank match undone); their invoices, for touching. */
/** Deletes outgoing payments; answers their invoices and dates. */
export async function deleteOutgoingPayments(
  db: Db,
  accountId: number,
  ids: number[],
): Promise<{ invoiceIds: number[]; dates: string[] }> {
  if (ids.length === 0) return { invoiceIds: [], dates: [] };
  const rows = await db
    .deleteFrom('payments')
    .where('account_id', '=', accountId)
    .where('type', '=', 'outgoing_invoice')
    .where('id', 'in', ids)
    .returning(['invoice_id', 'date'])
    .execute();
  return { invoiceIds: [...new Set(rows.map((r) => r.invoice_id))], dates: rows.map((r) => r.date) };
}

export const findPaymentAccount = (db: Db, accountId: number, id: number) =>
  findOwned(db, 'payment_accounts', accountId, id);

/**
 * The next id of the one payment id space: PostgreSQL's sequence of `payments.id` (the default
 * of both tables); on SQLite the higher AUTOINCREMENT counter of the two tables (writes are
 * serialized there, and an insert with an explicit id moves its table's counter).
 */
export async function nextPaymentId(db: Db): Promise<number> {
  if (isPostgres(db)) {
    const r = await sql<{
      id: string;
    }>`SELECT nextval(pg_get_serial_sequence('payments', 'id')) AS id`.execute(db);
    return Number(r.rows[0]!.id);
  }
  const r = await sql<{ m: number | null }>`
    SELECT max(seq) AS m FROM sqlite_sequence WHERE name IN ('payments', 'incoming_payments')`.execute(db);
  return Number(r.rows[0]?.m ?? 0) + 1;
}

export async function insertPayment(db: Db, values: Insertable<PaymentTable>): Promise<PaymentRow> {
  return insertReturning(db, 'payments', { ...values, id: await nextPaymentId(db) });
}

export function creditUse(db: Db, accountId: number, creditId: number) {
  return db
    .selectFrom('payments')
    .select(['id', 'invoice_id'])
    .where('account_id', '=', accountId)
    .where('credit_id', '=', creditId)
    .executeTakeFirst();
}
