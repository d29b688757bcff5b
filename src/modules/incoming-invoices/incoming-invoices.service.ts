import type { Db } from '../../db/index.js';
import { transact } from '../../db/transact.js';
import type { AuthContext } from '../../plugins/auth.js';
import { changesNothing } from '../../shared/changes.js';
import { AppError, type FieldError, notFound } from '../../shared/errors.js';
import { nowIso } from '../../shared/time.js';
import { storeFile, type Upload } from '../files/files.service.js';
import { findSupplier, findSupplierBySeller } from '../suppliers/suppliers.repository.js';
import { bookingSumError, resolveBookings } from './bookings.service.js';
import type { Extracted } from './extraction.js';
import { type InvoiceRow, toCents, toIncomingInvoice } from './incoming-invoices.mappers.js';
import * as repo from './incoming-invoices.repository.js';
import type {
  IncomingInvoice,
  IncomingInvoiceCreate,
  IncomingInvoiceListQuery,
  IncomingInvoiceUpdate,
} from './incoming-invoices.schemas.js';

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

export async function listInvoices(db: Db, auth: AuthContext, q: IncomingInvoiceListQuery) {
  const page = await repo.listInvoices(db, auth.accountId, q);
  return { ...page, rows: await present(db, auth, page.rows) };
}

export async function getInvoice(db: Db, auth: AuthContext, id: number): Promise<InvoiceRow> {
  const row = await repo.findInvoice(db, auth.accountId, id);
  if (!row) throw notFound('Incoming invoice');
  return row;
}

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
  if (errors.length) throw new AppError('validation_failed', errors[0]!.message, { errors });
  return { net_total: netOut, tax_total: tax, gross_total: gross };
}

const centsOf = (v: number | string | undefined) => (v === undefined ? undefined : toCents(v));

export async function createInvoice(
  db: Db,
  auth: AuthContext,
  body: IncomingInvoiceCreate,
  upload?: Upload,
  /** Reads the upload's data (off the event loop, see extraction.pool.ts). */
  extract: (upload: Upload) => Promise<Extracted> = async () => ({}),
): Promise<InvoiceRow> {
  const extracted: Extracted = upload && !body.file_was_preprocessed ? await extract(upload) : {};
  // Explicit fields win over extracted ones; only the extracted values actually used are reported.
  const used = new Set(
    Object.keys(extracted).filter((k) => (body as Record<string, unknown>)[k] === undefined),
  );
  // Totals come as a consistent set: one given explicitly replaces all extracted ones.
  const TOTALS = ['net_total', 'tax_total', 'gross_total'] as const;
  if (TOTALS.some((k) => body[k] !== undefined)) for (const k of TOTALS) used.delete(k);
  const pick = <K extends keyof Extracted>(k: K) => (used.has(k) ? extracted[k] : undefined);
  let supplierId = body.supplier_id;
  if (supplierId === undefined && (pick('supplier_vat_id') || pick('supplier_name'))) {
    const match = await findSupplierBySeller(db, auth.accountId, {
      vat_id: pick('supplier_vat_id'),
      name: pick('supplier_name'),
    });
    if (match) {
      supplierId = match.id;
      used.add('supplier_id');
    }
  }
  await checkSupplier(db, auth, supplierId);
  const totals = completeTotals({
    net_total: centsOf(body.net_total ?? pick('net_total')),
    tax_total: centsOf(body.tax_total ?? pick('tax_total')),
    gross_total: centsOf(body.gross_total ?? pick('gross_total')),
  });
  return transact(db, async (trx) => {
    let row = await repo.insertInvoice(trx, {
      account_id: auth.accountId,
      document_type: body.document_type ?? pick('document_type') ?? 'Invoice',
      supplier_id: supplierId ?? null,
      supplier_name: body.supplier_name ?? pick('supplier_name') ?? null,
      supplier_vat_id: body.supplier_vat_id ?? pick('supplier_vat_id') ?? null,
      invoice_number: body.invoice_number ?? pick('invoice_number') ?? null,
      date: body.date ?? pick('date') ?? null,
      due_date: body.due_date ?? pick('due_date') ?? null,
      currency: body.currency ?? pick('currency') ?? 'EUR',
      ...totals,
      status: body.status ?? 'open',
      description: body.description ?? null,
      file_was_preprocessed: body.file_was_preprocessed ? 1 : 0,
      extracted_fields: JSON.stringify([...used].sort()),
    });
    if (upload) {
      const file = await storeFile(trx, auth, upload, { type: 'incoming_invoice', id: row.id });
      row = await repo.updateInvoice(trx, auth.accountId, row.id, { file_id: file.id, file_md5: file.md5 });
    }
    if (body.bookings?.length)
      await repo.insertBookings(trx, await resolveBookings(trx, auth, row, body.bookings));
    return row;
  });
}

export function updateInvoice(db: Db, auth: AuthContext, id: number, body: IncomingInvoiceUpdate) {
  return transact(db, async (trx) => {
    const row = await repo.lockInvoice(trx, auth.accountId, id);
    if (!row) throw notFound('Incoming invoice');
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
      throw new AppError('validation_failed', 'gross_total is below the amount already paid', {
        errors: [{ field: 'gross_total', message: `must be at least the paid total ${paid / 100}` }],
      });
    const booked = ((await repo.bookingsOf(trx, auth.accountId, [id])).get(id) ?? []).reduce(
      (s, b) => s + Number(b.amount),
      0,
    );
    if (booked > totals.gross_total) throw bookingSumError('gross_total', booked, totals.gross_total);
    const fullyPaid = paid > 0 && paid >= totals.gross_total;
    if (status !== undefined && fullyPaid)
      throw new AppError('conflict', 'A paid document keeps its status; it follows its payments');
    const nextStatus = fullyPaid ? 'paid' : (status ?? (row.status === 'paid' ? 'approved' : row.status));
    // Payments were made to (or set off against) a document of this type: the type stays.
    if (paid > 0 && fields.document_type !== undefined && fields.document_type !== row.document_type)
      throw new AppError('document_has_payments', 'A document with payments keeps its document_type');
    const values = { ...fields, ...totals, status: nextStatus };
    // A PATCH that changes nothing keeps updated_at (shared rule: src/shared/changes.ts).
    if (changesNothing(row, values)) return row;
    return repo.updateInvoice(trx, auth.accountId, id, { ...values, updated_at: nowIso() });
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
