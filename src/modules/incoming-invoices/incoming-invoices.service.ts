import type { Transaction, Updateable } from 'kysely';
import type { Db } from '../../db/index.js';
import type { Database } from '../../db/schema.js';
import { transact } from '../../db/transact.js';
import { changesNothing } from '../../shared/changes.js';
import { AppError, type FieldError, validationFailed } from '../../shared/errors.js';
import { recordEvent } from '../../shared/events.js';
import { toCents } from '../../shared/money.js';
import { orNotFound } from '../../shared/owned.js';
import { nowIso } from '../../shared/time.js';
import type { AuthContext } from '../../shared/tokens.js';
import { assertPeriodOpen } from '../exports/exports.public.js';
import { storeFile, type Upload } from '../files/files.public.js';
import { findSupplier, findSupplierBySeller } from '../suppliers/suppliers.public.js';
import { bookedCents, bookingSumError, resolveBookings } from './bookings.service.js';
import { type Merged, mergeExtraction, TOTALS } from './extraction.merge.js';
import type { ExtractionOutcome } from './extraction.model.js';
import { checkFields, requestColumns, requestFieldsOf } from './incoming-invoices.fields.js';
import { type InvoiceRow, toIncomingInvoice } from './incoming-invoices.mappers.js';
import * as repo from './incoming-invoices.repository.js';
import type {
  IncomingInvoice,
  IncomingInvoiceCreate,
  IncomingInvoiceListQuery,
  IncomingInvoiceUpdate,
} from './incoming-invoices.schemas.js';
import type { IncomingInvoiceTable } from './incoming-invoices.tables.js';
import { enqueueExtraction } from './jobs/enqueue.js';

export async function present(db: Db, auth: AuthContext, rows: InvoiceRow[]): Promise<IncomingInvoice[]> {
  const bookings = await repo.bookingsOf(
    db,
    auth.accountId,
    rows.map((r) => r.id),
  );
  return rows.map((r) => toIncomingInvoice(r, bookings.get(r.id) ?? []));
}

export async function presentOne(db: Db, auth: AuthContext, row: InvoiceRow) {
  return (await present(db, auth, [row]))[0]!;
}

/**
 * The reading of a document ended (`done` or `failed`): the event `incoming-invoice:extracted`
 * carries the document as its GET answers, in the transaction that stored the outcome.
 */
async function recordExtracted(trx: Transaction<Database>, row: InvoiceRow, integrationId?: number) {
  const bookings = await repo.bookingsOf(trx, row.account_id, [row.id]);
  await recordEvent(trx, {
    accountId: row.account_id,
    kind: 'incoming-invoice:extracted',
    resourceType: 'incoming_invoice',
    resourceId: row.id,
    data: toIncomingInvoice(row, bookings.get(row.id) ?? []),
    integrationId: integrationId ?? null,
  });
}

export async function listInvoices(db: Db, auth: AuthContext, q: IncomingInvoiceListQuery) {
  const page = await repo.listInvoices(db, auth.accountId, q);
  return { ...page, rows: await present(db, auth, page.rows) };
}

export const getInvoice = async (db: Db, auth: AuthContext, id: number): Promise<InvoiceRow> =>
  orNotFound(await repo.findInvoice(db, auth.accountId, id), 'Incoming invoice');

async function checkSupplier(db: Db, auth: AuthContext, id: number | null | undefined) {
  if (id === null || id === undefined) return;
  if (!(await findSupplier(db, auth.accountId, id)))
    throw new AppError('invalid_reference', 'supplier_id: no such supplier', {
      errors: [{ field: 'supplier_id', message: 'no such supplier' }],
    });
}

interface Totals {
  net_total: number;
  tax_total: number;
  gross_total: number;
}

/**
 * Completes and checks totals in cents: a missing gross is net + tax, a missing net is
 * gross − tax; when all three are known they must add up.
 */
export function completeTotals(given: Partial<Totals>, current?: Totals): Totals {
  const net = given.net_total ?? (given.gross_total === undefined ? current?.net_total : undefined);
  const tax = given.tax_total ?? current?.tax_total ?? 0;
  let gross = given.gross_total ?? (given.net_total === undefined ? current?.gross_total : undefined);
  let netOut = net;
  if (gross === undefined) gross = (net ?? 0) + tax;
  if (netOut === undefined) netOut = gross - tax;
  const errors: FieldError[] = [];
  if (netOut < 0) errors.push({ field: 'tax_total', message: 'is larger than the gross total' });
  else if (netOut + tax !== gross)
    errors.push({ field: 'gross_total', message: 'must equal net_total + tax_total' });
  if (errors.length) throw validationFailed(errors, errors[0]!.message);
  return { net_total: netOut, tax_total: tax, gross_total: gross };
}

// Wire totals: the schema (Amount) allows two decimals and at most 10^11, so toCents answers.
const centsOf = (v: number | undefined) => (v === undefined ? undefined : toCents(v)!);
const union = (...lists: string[][]) => [...new Set(lists.flat())].sort();

/** Extraction stopped by a limit of the thread (time, memory, a crash): nothing was read. */
const FAILED = new Set(['timeout', 'out_of_memory', 'unreadable']);

/**
 * The supplier a document's seller names (VAT id first, then exact name), if it is one of
 * ours; a match counts as an extracted field (`used`) with the provenance of the seller's.
 */
async function matchSupplier(
  db: Db,
  accountId: number,
  merged: Merged,
  used: string[],
): Promise<number | undefined> {
  const vat = merged.values.supplier_vat_id as string | undefined;
  const name = merged.values.supplier_name as string | undefined;
  if (!vat && !name) return undefined;
  const id = (await findSupplierBySeller(db, accountId, { vat_id: vat, name }))?.id;
  if (id !== undefined) {
    used.push('supplier_id');
    // Matched, not read: as sure as the seller's VAT id or name it was matched by.
    const seller = merged.provenance.supplier_vat_id ?? merged.provenance.supplier_name;
    if (seller) merged.provenance.supplier_id = { ...seller, derived: true };
  }
  return id;
}

/** The fields stored as they are written (the others: requestColumns). */
function plainFields(body: IncomingInvoiceUpdate) {
  const { document_type, supplier_id, supplier_name, invoice_number, date, due_date, currency, description } =
    body;
  return Object.fromEntries(
    Object.entries({
      document_type,
      supplier_id,
      supplier_name,
      invoice_number,
      date,
      due_date,
      currency,
      description,
    }).filter(([, v]) => v !== undefined),
  ) as Partial<
    Pick<
      IncomingInvoiceUpdate,
      | 'document_type'
      | 'supplier_id'
      | 'supplier_name'
      | 'invoice_number'
      | 'date'
      | 'due_date'
      | 'currency'
      | 'description'
    >
  >;
}

export async function createInvoice(
  db: Db,
  auth: AuthContext,
  body: IncomingInvoiceCreate,
  upload?: Upload,
  /** Reads the upload's data (off the event loop, see extraction.pool.ts). */
  extract?: (upload: Upload) => Promise<ExtractionOutcome>,
  /** The e-mail it came with (mailbox intake). */
  source?: { mailboxId: number; messageId: string; sender: string | null; subject: string | null },
): Promise<InvoiceRow> {
  checkFields(body);
  const requestFields = requestFieldsOf(body);
  const outcome = upload && !body.file_was_preprocessed && extract ? await extract(upload) : undefined;
  const merged = outcome
    ? mergeExtraction(outcome, new Set(requestFields))
    : { values: {}, used: [], provenance: {}, warnings: [] };
  const used = [...merged.used];
  // An explicit null keeps the document without supplier: only an absent one is matched.
  const supplierId =
    body.supplier_id !== undefined ? body.supplier_id : await matchSupplier(db, auth.accountId, merged, used);
  await checkSupplier(db, auth, supplierId);
  // The caller's totals are checked (and completed) as always; extracted ones are stored as read.
  const givenTotals = TOTALS.some((k) => body[k] !== undefined);
  const totals = givenTotals
    ? completeTotals({
        net_total: centsOf(body.net_total),
        tax_total: centsOf(body.tax_total),
        gross_total: centsOf(body.gross_total),
      })
    : {};
  // A scan, or PDF pages without text: the OCR job reads it after the request (pending until then).
  let status: 'skipped' | 'pending' | 'failed' | 'done' = 'done';
  if (!outcome) status = 'skipped';
  else if (outcome.needs_ocr) status = 'pending';
  else if (outcome.warnings.some((w) => FAILED.has(w.code))) status = 'failed';
  return transact(db, async (trx) => {
    let row = await repo.insertInvoice(trx, {
      account_id: auth.accountId,
      ...merged.values,
      ...requestColumns(body),
      document_type: body.document_type ?? (merged.values.document_type as string | undefined) ?? 'Invoice',
      supplier_id: supplierId ?? null,
      supplier_name: body.supplier_name ?? (merged.values.supplier_name as string | undefined) ?? null,
      invoice_number: body.invoice_number ?? (merged.values.invoice_number as string | undefined) ?? null,
      date: body.date ?? (merged.values.date as string | undefined) ?? null,
      due_date: body.due_date ?? (merged.values.due_date as string | undefined) ?? null,
      currency: body.currency ?? (merged.values.currency as string | undefined) ?? 'EUR',
      ...totals,
      status: body.status ?? 'open',
      description: body.description ?? null,
      file_was_preprocessed: body.file_was_preprocessed ? 1 : 0,
      extracted_fields: JSON.stringify(union(used)),
      extraction_status: status,
      extraction_method: outcome?.method ?? null,
      extraction_warnings: JSON.stringify([...(outcome?.warnings ?? []), ...merged.warnings]),
      extraction_provenance: JSON.stringify(merged.provenance),
      request_fields: JSON.stringify(requestFields),
      ...(source
        ? {
            source_mailbox_id: source.mailboxId,
            source_message_id: source.messageId,
            source_sender: source.sender,
            source_subject: source.subject,
          }
        : {}),
    });
    if (upload) {
      const file = await storeFile(trx, auth, upload, { type: 'incoming_invoice', id: row.id });
      row = await repo.updateInvoice(trx, auth.accountId, row.id, { file_id: file.id, file_md5: file.md5 });
    }
    if (body.bookings?.length) await assertPeriodOpen(trx, auth.accountId, 'The incoming invoice', row.date);
    if (body.bookings?.length)
      await repo.insertBookings(trx, await resolveBookings(trx, auth, row, body.bookings));
    if (status === 'pending') await enqueueExtraction(trx, { accountId: auth.accountId, invoiceId: row.id });
    else if (status !== 'skipped') await recordExtracted(trx, row, auth.integrationId);
    return row;
  });
}

/**
 * Stores a finished extraction (the job worker calls it when OCR or a large PDF has been
 * read): every field the caller did not set explicitly (`request_fields`, which PATCH adds
 * to) takes the extracted value. Totals are left as they are when the caller set one, or when
 * the extracted gross is below what is already paid or booked (a warning says so).
 */
export async function applyExtraction(
  db: Db,
  accountId: number,
  invoiceId: number,
  outcome: ExtractionOutcome,
  status: 'done' | 'failed' = 'done',
): Promise<InvoiceRow | undefined> {
  return transact(db, async (trx) => {
    const row = await repo.lockInvoice(trx, accountId, invoiceId);
    if (!row) return undefined;
    const requestFields = new Set(JSON.parse(row.request_fields) as string[]);
    const merged = mergeExtraction(outcome, requestFields);
    const warnings = [...outcome.warnings, ...merged.warnings];
    const booked = await bookedCents(trx, accountId, invoiceId);
    const gross = merged.values.gross_total as number | undefined;
    if (gross !== undefined && gross < Math.max(Number(row.paid_total), booked)) {
      for (const k of TOTALS) {
        delete merged.values[k];
        delete merged.provenance[k];
      }
      merged.used = merged.used.filter((k) => !(TOTALS as readonly string[]).includes(k));
      warnings.push({
        code: 'totals_inconsistent',
        field: 'gross_total',
        message:
          'The gross total read is below the amount already paid or booked; the stored totals were kept',
      });
    }
    const used = [...merged.used];
    const values: Updateable<IncomingInvoiceTable> = { ...merged.values };
    if (row.supplier_id === null && !requestFields.has('supplier_id')) {
      const supplierId = await matchSupplier(trx, accountId, merged, used);
      if (supplierId !== undefined) values.supplier_id = supplierId;
    }
    const updated = await repo.updateInvoice(trx, accountId, invoiceId, {
      ...values,
      extracted_fields: JSON.stringify(union(JSON.parse(row.extracted_fields) as string[], used)),
      extraction_status: status,
      extraction_method: outcome.method ?? row.extraction_method,
      extraction_warnings: JSON.stringify(warnings),
      extraction_provenance: JSON.stringify({
        ...(JSON.parse(row.extraction_provenance) as Record<string, unknown>),
        ...merged.provenance,
      }),
      updated_at: nowIso(),
    });
    await recordExtracted(trx, updated);
    return updated;
  });
}

export function updateInvoice(db: Db, auth: AuthContext, id: number, body: IncomingInvoiceUpdate) {
  return transact(db, async (trx) => {
    const row = orNotFound(await repo.lockInvoice(trx, auth.accountId, id), 'Incoming invoice');
    checkFields(body, row);
    await checkSupplier(trx, auth, body.supplier_id);
    const { net_total, tax_total, gross_total, status, ...fields } = body;
    const totals = completeTotals(
      { net_total: centsOf(net_total), tax_total: centsOf(tax_total), gross_total: centsOf(gross_total) },
      {
        net_total: Number(row.net_total),
        tax_total: Number(row.tax_total),
        gross_total: Number(row.gross_total),
      },
    );
    const paid = Number(row.paid_total);
    if (totals.gross_total < paid)
      throw validationFailed(
        [{ field: 'gross_total', message: `must be at least the paid total ${paid / 100}` }],
        'gross_total is below the amount already paid',
      );
    const booked = await bookedCents(trx, auth.accountId, id);
    // Booked on the chart: its month (and the one it would move to) must be open.
    if (booked > 0)
      await assertPeriodOpen(trx, auth.accountId, `Incoming invoice ${id}`, row.date, body.date);
    if (booked > totals.gross_total) throw bookingSumError('gross_total', booked, totals.gross_total);
    const fullyPaid = paid > 0 && paid >= totals.gross_total;
    if (status !== undefined && fullyPaid)
      throw new AppError('conflict', 'A paid document keeps its status; it follows its payments');
    const nextStatus = fullyPaid ? 'paid' : (status ?? (row.status === 'paid' ? 'approved' : row.status));
    // Payments were made to (or set off against) a document of this type: the type stays.
    if (paid > 0 && fields.document_type !== undefined && fields.document_type !== row.document_type)
      throw new AppError('document_has_payments', 'A document with payments keeps its document_type');
    // A field the clerk wrote is theirs: a later extraction leaves it, and it is no longer "extracted".
    const written = requestFieldsOf(body);
    const values = {
      ...plainFields(fields),
      ...requestColumns(body),
      ...totals,
      status: nextStatus,
      request_fields: JSON.stringify(union(JSON.parse(row.request_fields) as string[], written)),
    };
    // A PATCH that changes nothing keeps updated_at (shared rule: src/shared/changes.ts).
    if (changesNothing(row, values)) return row;
    const provenance = JSON.parse(row.extraction_provenance) as Record<string, unknown>;
    for (const k of written) delete provenance[k];
    return repo.updateInvoice(trx, auth.accountId, id, {
      ...values,
      extracted_fields: JSON.stringify(
        (JSON.parse(row.extracted_fields) as string[]).filter((k) => !written.includes(k)),
      ),
      extraction_provenance: JSON.stringify(provenance),
      updated_at: nowIso(),
    });
  });
}

export async function checkDuplicate(db: Db, auth: AuthContext, md5: string) {
  const hash = md5.toLowerCase();
  const matches = await repo.findByMd5(db, auth.accountId, hash);
  return {
    duplicate: matches.length > 0,
    md5: hash,
    matches: matches.map((m) => ({
      ...m,
      document_type: m.document_type as IncomingInvoice['document_type'],
    })),
  };
}
