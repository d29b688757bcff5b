/**
 * The front door of incoming invoices for other modules. Payments settle documents through it
 * (lock, open amount, add to the paid total) instead of reaching into the repository; money
 * conversion is `src/shared/money.ts`. Chart-of-accounts and suppliers sit below this module and
 * import nothing from it.
 */
import type { Db } from '../../db/index.js';
import { nowIso } from '../../shared/time.js';
import type { InvoiceRow } from './incoming-invoices.mappers.js';
import * as repo from './incoming-invoices.repository.js';

export { createExtractor, type Extractor } from './extraction.pool.js';
export { createInvoice } from './incoming-invoices.service.js';

/** The first document of the account with a file of this MD5 (lower-case hex), if any. */
export const findByFileMd5 = async (db: Db, accountId: number, md5: string) =>
  (await repo.findByMd5(db, accountId, md5.toLowerCase()))[0];

/** A stored incoming invoice or credit (amounts in cents). */
export type IncomingInvoiceRow = InvoiceRow;

/**
 * The document of this account, locked for the rest of the transaction on PostgreSQL so that
 * concurrent payments see each other's sums; undefined when there is none.
 */
export const lockIncomingInvoice = (
  trx: Db,
  accountId: number,
  id: number,
): Promise<IncomingInvoiceRow | undefined> => repo.lockInvoice(trx, accountId, id);

/** What is left to pay on a document, in cents (gross minus paid). */
export const openCentsOf = (row: IncomingInvoiceRow): number =>
  Number(row.gross_total) - Number(row.paid_total);

/**
 * Adds `cents` to a document's paid total (from the row as read); a document paid in full
 * becomes `paid`, any other keeps its status. Paid in full, it is no longer in transit: a
 * SEPA transfer still waiting for the bank (paid by hand meanwhile) pays nothing any more.
 */
export async function addPaidCents(
  trx: Db,
  accountId: number,
  row: IncomingInvoiceRow,
  cents: number,
): Promise<void> {
  const paid = Number(row.paid_total) + cents;
  const full = paid >= Number(row.gross_total);
  await repo.updateInvoice(trx, accountId, row.id, {
    paid_total: paid,
    status: full ? 'paid' : row.status,
    ...(full ? { payment_in_transit_run_id: null } : {}),
    updated_at: nowIso(),
  });
}

/**
 * Takes `cents` off a document's paid total (a payment removed, such as a bank match undone);
 * a paid document that is open again becomes `approved`, as a PATCH of its totals does.
 */
export async function removePaidCents(
  trx: Db,
  accountId: number,
  row: IncomingInvoiceRow,
  cents: number,
): Promise<void> {
  const paid = Number(row.paid_total) - cents;
  await repo.updateInvoice(trx, accountId, row.id, {
    paid_total: paid,
    status: row.status === 'paid' && paid < Number(row.gross_total) ? 'approved' : row.status,
    updated_at: nowIso(),
  });
}

/**
 * Marks documents as being paid by a SEPA credit transfer run (null: no longer in transit,
 * because the bank statement confirmed the payment).
 */
export async function setPaymentInTransit(
  trx: Db,
  accountId: number,
  ids: number[],
  runId: number | null,
): Promise<void> {
  const now = nowIso();
  for (const id of ids)
    await repo.updateInvoice(trx, accountId, id, { payment_in_transit_run_id: runId, updated_at: now });
}
