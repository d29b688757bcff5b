import type { Db } from '../../db/index.js';
import { nowIso } from '../../shared/time.js';
import { findInvoice, invoiceState } from '../outgoing-invoices/outgoing-invoices.public.js';
import * as repo from './dunning.repository.js';

/**
 * The letters of an invoice are `settled` exactly while the invoice is paid. Payments call this
 * in the transaction that changes an invoice's payments: a payment that settles the invoice
 * settles its open and sent letters at once, and removing one (a bank match undone) that opens
 * the invoice again gives its settled letters back their status before (`sent` when they were
 * sent, else `open`), so the claims stand again and the run goes on from them. Cancelled letters
 * stay cancelled. Invoices without letters cost one query.
 */
export async function syncSettlement(
  db: Db,
  accountId: number,
  invoiceIds: readonly number[],
  now = nowIso(),
): Promise<{ settled: number; reopened: number }> {
  const letters = await repo.standingLettersOf(db, accountId, [...new Set(invoiceIds)]);
  const toSettle: number[] = [];
  const toReopen: number[] = [];
  for (const invoiceId of new Set(letters.map((l) => l.invoice_id))) {
    const row = await findInvoice(db, accountId, invoiceId);
    if (!row) continue;
    const paid = (await invoiceState(db, accountId, row)).payment.open <= 0;
    for (const l of letters) {
      if (l.invoice_id !== invoiceId) continue;
      if (paid && l.status !== 'settled') toSettle.push(l.id);
      if (!paid && l.status === 'settled') toReopen.push(l.id);
    }
  }
  await repo.settleLetters(db, accountId, toSettle, now);
  await repo.unsettleLetters(db, accountId, toReopen, now);
  return { settled: toSettle.length, reopened: toReopen.length };
}
