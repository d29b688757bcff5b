import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/index.js';
import { insertReturning } from '../../shared/owned.js';
import type { IncomingPaymentAllocationTable, IncomingPaymentTable } from './incoming-payments.tables.js';
import { nextPaymentId } from './payments.repository.js';

export type IncomingPaymentRow = Selectable<IncomingPaymentTable>;
export type AllocationRow = Selectable<IncomingPaymentAllocationTable>;

/** Ids come from the one payment id space shared with outgoing payments (migration 950). */
export async function insertPayment(db: Db, values: Insertable<IncomingPaymentTable>) {
  return insertReturning(db, 'incoming_payments', { ...values, id: await nextPaymentId(db) });
}

export function insertAllocations(db: Db, rows: Insertable<IncomingPaymentAllocationTable>[]) {
  return db.insertInto('incoming_payment_allocations').values(rows).execute();
}

export function allocationsOf(db: Db, paymentIds: number[]) {
  if (paymentIds.length === 0) return Promise.resolve([] as AllocationRow[]);
  return db
    .selectFrom('incoming_payment_allocations')
    .selectAll()
    .where('incoming_payment_id', 'in', paymentIds)
    .orderBy('id')
    .execute();
}

/**
 * Every payment and credit offset on incoming documents of the account, oldest first, each
 * with its allocations (amounts in cents), for folding into GET /payments.
 */
export async function listIncomingPayments(db: Db, accountId: number) {
  const payments = await db
    .selectFrom('incoming_payments')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
  const allocations = await allocationsOf(
    db,
    payments.map((p) => p.id),
  );
  return payments.map((p) => ({
    ...p,
    amount: Number(p.amount),
    allocations: allocations
      .filter((a) => a.incoming_payment_id === p.id)
      .map((a) => ({ incoming_invoice_id: a.incoming_invoice_id, amount: Number(a.amount) })),
  }));
}

/** Deletes payments and their allocations; answers the allocations they had. */
export async function deletePayments(db: Db, accountId: number, ids: number[]): Promise<AllocationRow[]> {
  if (ids.length === 0) return [];
  const shares = await db
    .selectFrom('incoming_payment_allocations')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('incoming_payment_id', 'in', ids)
    .execute();
  await db
    .deleteFrom('incoming_payment_allocations')
    .where('account_id', '=', accountId)
    .where('incoming_payment_id', 'in', ids)
    .execute();
  await db
    .deleteFrom('incoming_payments')
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .execute();
  return shares;
}
