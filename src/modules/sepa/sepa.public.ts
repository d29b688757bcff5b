/**
 * The front door of SEPA payment files (issue 40) for banking: a bank statement line that
 * carries the end-to-end id of a transfer or collection in transit confirms it. SEPA builds
 * on payments, incoming and outgoing invoices, clients and the account; banking builds on it.
 */
import type { Db } from '../../db/index.js';
import { nowIso } from '../../shared/time.js';
import { setPaymentInTransit } from '../incoming-invoices/incoming-invoices.public.js';
import * as repo from './sepa.repository.js';

export { sepaMandateRoutes, sepaRoutes } from './sepa.routes.js';

/** A transfer (incoming invoice paid) or collection (outgoing invoice collected) in transit. */
export interface ItemInTransit {
  id: number;
  run_id: number;
  kind: 'incoming' | 'outgoing';
  invoice_id: number;
  /** Cents: what the bank line must move (paid out for incoming, received for outgoing). */
  amount: number;
}

/** The items in transit with these end-to-end ids, by end-to-end id. */
export async function itemsInTransit(
  db: Db,
  accountId: number,
  endToEndIds: string[],
): Promise<Map<string, ItemInTransit>> {
  const rows = await repo.inTransitByEndToEnd(db, accountId, [...new Set(endToEndIds)]);
  return new Map(
    rows.map((r) => [
      r.end_to_end_id,
      {
        id: r.id,
        run_id: r.run_id,
        kind: r.incoming_invoice_id === null ? 'outgoing' : 'incoming',
        invoice_id: (r.incoming_invoice_id ?? r.outgoing_invoice_id)!,
        amount: Number(r.amount),
      },
    ]),
  );
}

/** The bank line confirmed the item: it is no longer in transit. */
export async function confirmItem(
  trx: Db,
  accountId: number,
  item: ItemInTransit,
  transactionId: number,
): Promise<void> {
  await repo.setItemStatus(trx, accountId, item.id, 'confirmed', transactionId);
  if (item.kind === 'incoming') await setPaymentInTransit(trx, accountId, [item.invoice_id], null);
}

/** A bank line's match was undone: the items it confirmed are in transit again. */
export async function reopenItemsOf(trx: Db, accountId: number, transactionId: number): Promise<void> {
  for (const item of await repo.itemsConfirmedBy(trx, accountId, transactionId)) {
    await repo.setItemStatus(trx, accountId, item.id, 'in_transit', null);
    if (item.incoming_invoice_id !== null)
      await setPaymentInTransit(trx, accountId, [item.incoming_invoice_id], item.run_id);
  }
}

/** A collection or transfer a bank line confirmed: what a return of it undoes. */
export interface ItemConfirmed {
  id: number;
  /** `outgoing`: a collection (direct debit); `incoming`: a credit transfer. */
  kind: 'incoming' | 'outgoing';
  invoice_id: number;
  /** Cents collected or paid. */
  amount: number;
  /** The bank line that confirmed it (its match recorded the payment). */
  transaction_id: number;
  sequence_type: string | null;
  mandate_id: number | null;
}

/** The confirmed collections and transfers with these end-to-end ids, by end-to-end id. */
export async function itemsConfirmed(
  db: Db,
  accountId: number,
  endToEndIds: string[],
): Promise<Map<string, ItemConfirmed>> {
  const rows = await repo.itemsConfirmed(db, accountId, [...new Set(endToEndIds)]);
  return new Map(
    rows.map((r) => [
      r.end_to_end_id,
      {
        id: r.id,
        kind: r.incoming_invoice_id === null ? 'outgoing' : 'incoming',
        invoice_id: (r.incoming_invoice_id ?? r.outgoing_invoice_id)!,
        amount: Number(r.amount),
        transaction_id: r.bank_transaction_id!,
        sequence_type: r.sequence_type,
        mandate_id: r.mandate_id,
      },
    ]),
  );
}

/**
 * The collection or transfer came back (returned, reversed, refunded): the item is `returned`,
 * naming the bank line that took the money back. A first collection (FRST) returned leaves the
 * mandate unused, so its next collection is a first one again (see docs/banking.md).
 */
export async function returnItem(
  trx: Db,
  accountId: number,
  item: ItemConfirmed,
  transactionId: number,
): Promise<void> {
  await repo.setItemStatus(trx, accountId, item.id, 'returned', transactionId);
  if (item.sequence_type !== 'FRST' || item.mandate_id === null) return;
  // Collected successfully since (a refund claimed weeks later): the mandate has been used.
  if (await repo.mandateCollected(trx, accountId, item.mandate_id)) return;
  const mandate = await repo.findMandate(trx, accountId, item.mandate_id);
  if (mandate?.status === 'active' && mandate.sequence !== 'first')
    await repo.updateMandate(trx, accountId, mandate.id, { sequence: 'first', updated_at: nowIso() });
}
