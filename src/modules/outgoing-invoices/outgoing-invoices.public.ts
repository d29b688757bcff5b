/**
 * The front door of outgoing invoices for other modules: offers (which share the line items,
 * the PDF mapping and the parties of a document) and payments (which record money received
 * for invoices). Other modules import outgoing invoices only from here or a `*.service.ts`,
 * never its repository, tables or helpers. Outgoing invoices import neither of them.
 */

import type { Db } from '../../db/index.js';
import { readInSteps } from '../../shared/collect.js';
import { nowIso } from '../../shared/time.js';
import * as repo from './invoices.repository.js';
import { type InvoiceView, loadView, loadViews } from './invoices.views.js';

export { lineItemsRoute, pdfRoute } from './document.routes.js';
export { isMaster, type PaymentState } from './invoices.domain.js';
export {
  forEachDocument,
  type ImportedPayment,
  type ImportedPaymentWriter,
  invoicesSection,
} from './invoices.import.js';
export { offerToPdf } from './invoices.pdf.js';
export { importDefaults } from './invoices.read-model.js';
export type { InvoiceRow } from './invoices.repository.js';
export { Invoice, type InvoiceCreate, Master } from './invoices.schemas.js';
export { invalidReference } from './invoices.support.js';
export type { DocumentItemColumns } from './invoices.tables.js';
export { keepDocument, keptDocument } from './kept-documents.service.js';
export {
  Amount,
  LineItem,
  LineItemInput,
  LineItemsInput,
  lineItemsOf,
  type ParsedLine,
  parseLineItems,
  positioned,
  TotalsProps,
  toLineItem,
  totalsToWire,
} from './line-items.js';
export { asDownload, documentParties, type PdfBytes } from './pdf.service.js';
export { RECURRING_PLANS, recurringPlansJob, runRecurringPlans } from './plans.scheduler.js';
export { invoiceTimesheet, type TimesheetRow } from './timesheet.read-model.js';

/**
 * A live invoice (or credit, or plan master) by id, row-locked on PostgreSQL when `lock`: a
 * payment on it holds the lock, so two cannot overpay it together.
 */
export const findInvoice = (db: Db, accountId: number, id: number, lock = false) =>
  repo.findInvoice(db, accountId, id, lock);

/** What an invoice totals and its payment state (paid, open, status), as its answers show it. */
export const invoiceState = (db: Db, accountId: number, row: repo.InvoiceRow): Promise<InvoiceView> =>
  loadView(db, accountId, row);

/**
 * The states of many live invoices by id, with a fixed number of queries per 250 (the
 * dunning run reads every overdue invoice's open amount so, not one invoice at a time).
 */
export async function invoiceStates(
  db: Db,
  accountId: number,
  ids: readonly number[],
): Promise<Map<number, InvoiceView>> {
  // Small steps: other requests come in between them.
  const views = await readInSteps(ids, 250, async (step) =>
    loadViews(db, accountId, await repo.findInvoices(db, accountId, step), true),
  );
  return new Map(views.map((v) => [v.row.id, v]));
}

/** Marks invoices changed (a payment on them changes their payment state). */
export async function touchInvoices(db: Db, accountId: number, ids: number[], now = nowIso()): Promise<void> {
  await repo.touchMany(db, accountId, ids, now);
}
