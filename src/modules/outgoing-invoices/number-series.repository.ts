import type { Db } from '../../db/index.js';

/** The account's number counters: one per kind of number and year (0: formats without a year). */
export function counters(db: Db, accountId: number) {
  return db
    .selectFrom('invoice_number_counters')
    .select(['kind', 'year', 'last_value'])
    .where('account_id', '=', accountId)
    .orderBy('kind')
    .orderBy('year')
    .execute();
}

/** Every numbered outgoing invoice of the account, deleted ones included. */
export function numbered(db: Db, accountId: number) {
  return db
    .selectFrom('outgoing_invoices')
    .select(['id', 'type', 'status', 'invoice_number', 'deleted_at', 'deleted_by'])
    .where('account_id', '=', accountId)
    .where('invoice_number', 'is not', null)
    .execute();
}
