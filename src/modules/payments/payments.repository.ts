import { type Insertable, type Kysely, type Selectable, sql } from 'kysely';
import { isPostgres } from '../../db/index.js';
import type { Database } from '../../db/schema.js';
import { type Page, paginate } from '../../shared/paging.js';
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
    ])
    .where('account_id', '=', accountId);
  const incoming = db
    .selectFrom('incoming_payments as ip')
    .innerJoin('accounts as a', 'a.id', 'ip.account_id')
    .select([
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
    ])
    .where('ip.account_id', '=', accountId);
  return db.selectFrom(outgoing.unionAll(incoming).as('p')).selectAll();
}

export type LedgerRow = Omit<PaymentRow, 'invoice_id'> & { invoice_id: number | null };

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
  const id = await nextPaymentId(db);
  return db
    .insertInto('payments')
    .values({ ...values, id })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function creditUse(db: Db, accountId: number, creditId: number) {
  return db
    .selectFrom('payments')
    .select(['id', 'invoice_id'])
    .where('account_id', '=', accountId)
    .where('credit_id', '=', creditId)
    .executeTakeFirst();
}
