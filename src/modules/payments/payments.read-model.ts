import { sql } from 'kysely';
import type { Db } from '../../db/index.js';
import { type Page, paginate } from '../../shared/paging.js';
import { toIso } from '../../shared/time.js';
import type { PaymentRow } from './payments.repository.js';
import type { PaymentListQuery } from './payments.schemas.js';

/**
 * The payments ledger as the API lists it: one view over the outgoing (`payments`) and the
 * incoming (`incoming_payments`) tables of this module, with the currency of incoming payments
 * from the account (`accounts`, the account module's table: read here, never written). A read
 * model: the account module has no front door for a join, and the ledger pages in one query.
 * `bank_transaction_id` is the bank line whose match recorded the payment (`bank_matches`,
 * the banking module's table, which builds on this one and so cannot be imported here).
 */

/** The account's currency (the default of imported payment accounts). */
export async function accountCurrency(db: Db, accountId: number): Promise<string> {
  const row = await db
    .selectFrom('accounts')
    .select('currency')
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  return row.currency;
}

/**
 * Every payment of the account as one ledger: outgoing payments and credit settlements
 * (`payments`) and incoming payments and credit offsets (`incoming_payments`), which share
 * one id space (migration 950).
 */
function ledger(db: Db, accountId: number) {
  const outgoing = db
    .selectFrom('payments')
    .select((eb) => [
      'id',
      'account_id',
      'type',
      eb.ref('invoice_id').$castTo<number | null>().as('invoice_id'),
      'credit_id',
      'payment_account_id',
      'amount',
      'currency',
      'date',
      'description',
      'created_at',
      'updated_at',
      eb
        .selectFrom('bank_matches as m')
        .select('m.transaction_id')
        .whereRef('m.payment_id', '=', 'payments.id')
        .$castTo<number | null>()
        .as('bank_transaction_id'),
    ])
    .where('account_id', '=', accountId);
  const incoming = db
    .selectFrom('incoming_payments as ip')
    .innerJoin('accounts as a', 'a.id', 'ip.account_id')
    .select((eb) => [
      'ip.id',
      'ip.account_id',
      sql<string>`CASE WHEN ip.type = 'credit' THEN 'incoming_invoice_credit' ELSE 'incoming_invoice' END`.as(
        'type',
      ),
      sql<number | null>`NULL`.as('invoice_id'),
      sql<number | null>`NULL`.as('credit_id'),
      'ip.payment_account_id',
      'ip.amount',
      'a.currency',
      'ip.date',
      'ip.reference as description',
      'ip.created_at',
      'ip.created_at as updated_at',
      eb
        .selectFrom('bank_matches as m')
        .select('m.transaction_id')
        .whereRef('m.payment_id', '=', 'ip.id')
        .$castTo<number | null>()
        .as('bank_transaction_id'),
    ])
    .where('ip.account_id', '=', accountId);
  return db.selectFrom(outgoing.unionAll(incoming).as('p')).selectAll();
}

export type LedgerRow = Omit<PaymentRow, 'invoice_id'> & {
  invoice_id: number | null;
  /** Absent on a row just inserted (not read through the ledger): no bank match yet. */
  bank_transaction_id?: number | null;
};

export function listPayments(db: Db, accountId: number, q: PaymentListQuery) {
  let qb = ledger(db, accountId);
  if (q.id !== undefined) qb = qb.where('id', '=', q.id);
  if (q.type) qb = qb.where('type', '=', q.type);
  if (q.invoice_id !== undefined) qb = qb.where('invoice_id', '=', q.invoice_id);
  if (q.outgoing_invoice_id !== undefined) {
    const id = q.outgoing_invoice_id;
    qb = qb.where((eb) => eb.or([eb('invoice_id', '=', id), eb('credit_id', '=', id)]));
  }
  if (q.incoming_invoice_id !== undefined) {
    const shares = db
      .selectFrom('incoming_payment_allocations')
      .select('incoming_payment_id')
      .where('account_id', '=', accountId)
      .where('incoming_invoice_id', '=', q.incoming_invoice_id);
    qb = qb.where('type', 'in', ['incoming_invoice', 'incoming_invoice_credit']).where('id', 'in', shares);
  }
  if (q.credit_id !== undefined) qb = qb.where('credit_id', '=', q.credit_id);
  if (q.payment_account_id !== undefined) qb = qb.where('payment_account_id', '=', q.payment_account_id);
  if (q.date_from) qb = qb.where('date', '>=', q.date_from);
  if (q.date_to) qb = qb.where('date', '<=', q.date_to);
  if (q.updated_since) qb = qb.where('updated_at', '>=', toIso(q.updated_since));
  return paginate(qb.orderBy('id'), q) as Promise<Page<LedgerRow>>;
}

export function findLedgerPayment(db: Db, accountId: number, id: number) {
  return ledger(db, accountId).where('id', '=', id).executeTakeFirst() as Promise<LedgerRow | undefined>;
}
