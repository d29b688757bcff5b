import type { Transaction, Updateable } from 'kysely';
import type { Db } from '../../db/index.js';
import type { Database } from '../../db/schema.js';
import { transact } from '../../db/transact.js';
import type { AuthContext } from '../../plugins/auth.js';
import { changesNothing } from '../../shared/changes.js';
import { AppError, type FieldError, notFound, validationFailed } from '../../shared/errors.js';
import { recordEvent } from '../../shared/events.js';
import type { Page } from '../../shared/paging.js';
import { nowIso, todayIso } from '../../shared/time.js';
import { assertPeriodOpen } from '../exports/exports.public.js';
import { writeCreate } from './invoices.create-batch.js';
import {
  deleteRefusal,
  editRefusal,
  intervalMonths,
  isMaster,
  isRecurring,
  planSchedule,
} from './invoices.domain.js';
import type { InvoiceRow } from './invoices.repository.js';
import * as repo from './invoices.repository.js';
import type {
  Invoice,
  InvoiceCreate,
  InvoiceListQuery,
  InvoiceUpdate,
  Master,
  MasterListQuery,
} from './invoices.schemas.js';
import { assertWithinPlan, checkDates, checkReferences, lockWithMaster } from './invoices.support.js';
import type { OutgoingInvoiceTable } from './invoices.tables.js';
import { loadMasters, loadView, loadViews, newView, toInvoice } from './invoices.views.js';
import { lineItemsOf, type ParsedLine, parseLineItems } from './line-items.js';
import { type AutoColumns, autoSettings } from './plans.domain.js';

export async function getRow(db: Db, auth: AuthContext, id: number, lock = false): Promise<InvoiceRow> {
  const row = await repo.findInvoice(db, auth.accountId, id, lock);
  if (!row) throw notFound('Outgoing invoice');
  return row;
}

/** Deleted invoices stay readable by id, with `deleted_at` and `deleted_by`. */
export async function getInvoice(db: Db, auth: AuthContext, id: number): Promise<Invoice> {
  const row = await repo.findInvoice(db, auth.accountId, id, false, true);
  if (!row) throw notFound('Outgoing invoice');
  return toInvoice(await loadView(db, auth.accountId, row));
}

export async function listInvoices(db: Db, auth: AuthContext, q: InvoiceListQuery): Promise<Page<Invoice>> {
  const page = await repo.listInvoices(db, auth.accountId, q);
  return { ...page, rows: (await loadViews(db, auth.accountId, page.rows, true)).map(toInvoice) };
}

export const listLineItems = lineItemsOf(getRow, repo.itemsPage);

export async function getMaster(db: Db, auth: AuthContext, id: number): Promise<Master> {
  // A deleted plan stays readable: its booked invoices still name it as their master.
  const row = await repo.findInvoice(db, auth.accountId, id, false, true);
  if (!row || !isMaster(row.type)) throw notFound('Invoice master plan');
  return (await loadMasters(db, auth.accountId, [row]))[0]!;
}

export async function listMasters(db: Db, auth: AuthContext, q: MasterListQuery): Promise<Page<Master>> {
  const page = await repo.listMasters(db, auth.accountId, q);
  return { ...page, rows: await loadMasters(db, auth.accountId, page.rows) };
}

export async function createInvoice(db: Db, auth: AuthContext, body: InvoiceCreate): Promise<Invoice> {
  const type = body.type ?? 'invoice';
  const lines = parseLineItems(body.line_items ?? []);
  if (type !== 'credit' && body.credited_invoice_id)
    throw validationFailed([{ field: 'credited_invoice_id', message: 'only credits refer to an invoice' }]);
  checkDates(body);
  // The totals go in with the row and a new invoice has no lines to delete: one INSERT per
  // table, and one change-log entry (`created`) instead of a second (`updated`).
  const totals = repo.lineTotalsColumns(lines);
  const head = {
    account_id: auth.accountId,
    type,
    status: body.status ?? 'open',
    client_id: body.client_id ?? null,
    date: body.date ?? null,
  };
  const { row, items } = await writeCreate(db, auth, body, head, lines, totals);
  // Answered from what was written: reading it back gives the same (see `newView`).
  return toInvoice(newView(row, items));
}

/** Records `kind` with the invoice as its GET answers it, in the change's transaction. */
export async function recordInvoiceEvent(
  trx: Transaction<Database>,
  auth: AuthContext,
  kind: 'invoice:created' | 'invoice:booked' | 'invoice:deleted',
  row: InvoiceRow,
): Promise<void> {
  await recordEvent(trx, {
    accountId: auth.accountId,
    kind,
    resourceType: 'outgoing_invoice',
    resourceId: row.id,
    data: toInvoice(await loadView(trx, auth.accountId, row)),
    integrationId: auth.integrationId,
  });
}

/** Which PATCH fields a kind of document takes; the rest are refused by name. */
function inapplicable(row: InvoiceRow, body: InvoiceUpdate): FieldError[] {
  const errors: FieldError[] = [];
  const refuse = (field: string, message: string) => errors.push({ field, message });
  const given = (k: keyof InvoiceUpdate) => body[k] !== undefined;
  if (!isRecurring(row.type)) {
    for (const k of ['plan_start', 'plan_end'] as const)
      if (given(k)) refuse(k, 'only recurring plans have a plan span');
    for (const k of ['auto_generate', 'auto_send'] as const)
      if (given(k)) refuse(k, 'only recurring plans make and send their invoices');
  }
  if (isMaster(row.type)) {
    for (const k of ['status', 'date', 'due_date', 'service_period_start', 'service_period_end'] as const)
      if (given(k)) refuse(k, 'plan masters take this on their invoices, not on the plan');
    if (row.type === 'partial_plan' && given('line_items'))
      refuse('line_items', 'the positions of a partial plan are those of its final invoice');
  }
  if (row.type !== 'credit' && body.credited_invoice_id)
    refuse('credited_invoice_id', 'only credits refer to an invoice');
  return errors;
}

/** Whether the parsed lines are the invoice's lines as stored, position by position. */
async function sameItems(trx: Db, auth: AuthContext, id: number, lines: readonly ParsedLine[]) {
  const items = await repo.itemsOf(trx, auth.accountId, [id]);
  return items.length === lines.length && lines.every((l, i) => changesNothing(items[i]!, l));
}

export async function updateInvoice(
  db: Db,
  auth: AuthContext,
  id: number,
  body: InvoiceUpdate,
): Promise<Invoice> {
  const lines = body.line_items !== undefined ? parseLineItems(body.line_items) : undefined;
  const row = await transact(db, async (trx) => {
    const { row: current, master } = await lockWithMaster(trx, auth.accountId, id);
    const refusal = editRefusal(current);
    if (refusal) throw refusal;
    const errors = inapplicable(current, body);
    if (errors.length > 0) throw validationFailed(errors);
    const { line_items: _lines, auto_generate, auto_send, ...given } = body;
    let scalars: typeof given & Partial<AutoColumns> = given;
    if (isRecurring(current.type)) {
      const auto = autoSettings(current, { auto_generate, auto_send }, todayIso());
      if (auto.errors.length > 0) throw validationFailed(auto.errors);
      scalars = { ...given, ...auto.values };
    }
    const merged = { ...current, ...scalars };
    checkDates(merged);
    if (isRecurring(current.type))
      planSchedule(merged.plan_start!, merged.plan_end!, intervalMonths(current.type));
    await checkReferences(trx, auth.accountId, {
      client_id: body.client_id,
      contact_id: body.contact_id,
      project_id: body.project_id,
      credited_invoice_id: body.credited_invoice_id,
    });
    // A PATCH that changes nothing keeps updated_at (shared rule: src/shared/changes.ts).
    if (changesNothing(current, scalars) && (!lines || (await sameItems(trx, auth, id, lines))))
      return current;
    // New lines' totals go in with the row's one UPDATE (one change-log entry, not two).
    const values: Updateable<OutgoingInvoiceTable> = {
      ...scalars,
      updated_at: nowIso(),
      ...(lines ? repo.lineTotalsColumns(lines) : {}),
    };
    const row = await repo.updateInvoice(trx, auth.accountId, id, values);
    if (lines) {
      await repo.replaceLines(trx, auth.accountId, id, lines);
      if (master?.type === 'partial_plan')
        await assertWithinPlan(trx, auth.accountId, master.id, 'line_items');
    }
    return row;
  });
  return toInvoice(await loadView(db, auth.accountId, row));
}

/**
 * Soft delete: the invoice stays readable by id (and listed with `deleted=true`) with
 * `deleted_at` and `deleted_by`; its number stays taken. Without `force`, booked invoices are
 * refused (409 invoice_booked), and so are plans with booked invoices (409
 * plan_has_booked_invoices; forced, the plan stays readable for them). A partial plan's final
 * invoice goes only with its plan (409 plan_final_invoice).
 */
export async function deleteInvoice(db: Db, auth: AuthContext, id: number, force: boolean): Promise<void> {
  await transact(db, async (trx) => {
    const row = await getRow(trx, auth, id, true);
    const refusal = deleteRefusal(row, force);
    if (refusal) throw refusal;
    if (row.status === 'booked') await assertPeriodOpen(trx, auth.accountId, `Invoice ${id}`, row.date);
    if (row.type === 'final' && row.master_id !== null) {
      throw new AppError(
        'plan_final_invoice',
        `Invoice ${id} is the final invoice of partial plan ${row.master_id}: delete the plan instead`,
      );
    }
    const children = isMaster(row.type) ? await repo.childrenOf(trx, auth.accountId, [id]) : [];
    const booked = children.filter((c) => c.status === 'booked');
    if (!force && booked.length > 0) {
      throw new AppError(
        'plan_has_booked_invoices',
        `Plan ${id} has booked invoices (${booked.map((c) => c.id).join(', ')}); DELETE …/force keeps it readable for them`,
      );
    }
    const now = nowIso();
    const deleted = { deleted_at: now, deleted_by: auth.userId, updated_at: now };
    await recordInvoiceEvent(
      trx,
      auth,
      'invoice:deleted',
      await repo.updateInvoice(trx, auth.accountId, id, deleted),
    );
    // A deleted plan takes its drafts along; booked invoices of it stay.
    for (const child of children) {
      if (child.status !== 'booked')
        await recordInvoiceEvent(
          trx,
          auth,
          'invoice:deleted',
          await repo.updateInvoice(trx, auth.accountId, child.id, deleted),
        );
    }
  });
}
