import { createHash } from 'node:crypto';
import { Type } from 'typebox';
import type { Db } from '../../db/index.js';
import type { AuthContext } from '../../plugins/auth.js';
import { AppError } from '../../shared/errors.js';
import { hoursOf, minutesAmount } from '../../shared/hours.js';
import { centsToString } from '../../shared/money.js';
import { renderDocumentPdf } from '../../shared/pdf/render.js';
import type { PdfDocument, PdfTimesheetRow } from '../../shared/pdf/types.js';
import { getAccountLogo } from '../account/account.service.js';
import { type AccountProfile, accountProfile } from '../account/profile.public.js';
import { getFileBytes } from '../files/files.public.js';
import { effectiveDueDate, isMaster } from './invoices.domain.js';
import { contactName, invoiceToPdf } from './invoices.pdf.js';
import { type ClientRow, findAccount, findClientRow, findContactName } from './invoices.read-model.js';
import type { InvoiceRow } from './invoices.repository.js';
import * as repo from './invoices.repository.js';
import { getRow } from './invoices.service.js';
import { type InvoiceView, loadView } from './invoices.views.js';
import { keepDocument, keptInvoiceDocument } from './kept-documents.service.js';
import { invoiceTimesheet } from './timesheet.read-model.js';

export const PdfQuery = Type.Object(
  {
    timesheet: Type.Optional(
      Type.Boolean({ description: 'Append the timesheet pages: the efforts the invoice bills' }),
    ),
  },
  { additionalProperties: false },
);

/** The timesheet pages of an invoice made from efforts (403 without efforts:read). */
async function timesheetRows(db: Db, auth: AuthContext, id: number): Promise<PdfTimesheetRow[]> {
  if (!auth.scopes.has('efforts:read'))
    throw new AppError('insufficient_scope', 'The timesheet needs the scope efforts:read as well', {
      extra: { required_scopes: ['outgoing-invoice:read', 'efforts:read'] },
    });
  const rows = await invoiceTimesheet(db, auth.accountId, id);
  if (rows.length === 0)
    throw new AppError('unprocessable', `Outgoing invoice ${id} bills no efforts: it has no timesheet`);
  return rows.map((r) => ({
    position: r.position,
    date: r.date,
    person: [r.first_name, r.last_name].filter(Boolean).join(' '),
    what: [r.task_name, r.description].filter(Boolean).join(': '),
    hours: hoursOf(r.minutes),
    rate: centsToString(r.hourly_rate),
    amount: centsToString(minutesAmount(r.minutes, r.hourly_rate)),
  }));
}

export interface PdfBytes {
  data: Buffer;
  filename: string;
  sha256: string;
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** The bytes of a document as a download: a file name without path separators, and their hash. */
export const asDownload = (data: Buffer, name: string): PdfBytes => ({
  data,
  filename: name.replace(/[/\\]/g, '-'),
  sha256: sha256(data),
});

export interface DocumentParties {
  seller: AccountProfile;
  buyer: ClientRow | undefined;
  /** The contact person the document is addressed to. */
  attention: string | null;
}

/** Who a document (invoice or offer) is from and to, as they are now. */
export async function documentParties(
  db: Db,
  accountId: number,
  doc: { client_id: number | null; contact_id: number | null },
): Promise<DocumentParties> {
  const [account, buyer, contact] = await Promise.all([
    findAccount(db, accountId),
    doc.client_id ? findClientRow(db, accountId, doc.client_id) : undefined,
    doc.contact_id ? findContactName(db, accountId, doc.contact_id) : undefined,
  ]);
  return { seller: accountProfile(account), buyer, attention: contact ? contactName(contact) : null };
}

/** What the PDF of an invoice shows now: sender and recipient as they are, totals, deductions. */
export async function documentFor(
  db: Db,
  accountId: number,
  row: InvoiceRow,
  view?: InvoiceView,
): Promise<PdfDocument> {
  const v = view ?? (await loadView(db, accountId, row));
  const [{ seller, buyer, attention }, credited] = await Promise.all([
    documentParties(db, accountId, row),
    row.credited_invoice_id ? repo.findInvoice(db, accountId, row.credited_invoice_id) : undefined,
  ]);
  return invoiceToPdf(
    {
      ...row,
      due_date: effectiveDueDate(row),
      items: v.items.map((i) => ({ ...i, unit_price: Number(i.unit_price), net_total: Number(i.net_total) })),
      totals: v.totals,
      plan_total: v.planTotal,
      deductions: v.deductions.map((d) => ({
        type: d.type,
        invoice_number: d.row.invoice_number,
        totals: d.totals,
      })),
      credited_invoice_number: credited?.invoice_number ?? null,
      attention,
      buyer_reference: row.buyer_reference ?? buyer?.buyer_reference ?? null,
    },
    seller,
    buyer,
  );
}

/** The image the document names (kept by its hash, so a booked invoice finds the logo it was booked with). */
async function logoBytes(db: Db, accountId: number, doc: PdfDocument): Promise<Buffer | undefined> {
  if (!doc.logo) return undefined;
  return (await getAccountLogo(db, accountId, doc.logo.sha256).catch(() => undefined))?.data;
}

/**
 * The PDF of an outgoing invoice. External invoices answer with their uploaded file. A booked
 * invoice prints what was frozen at booking, rendered at its first request and kept
 * (kept-documents.service.ts), so every later download — and every mail attachment — is one
 * read of the very same bytes; drafts are rendered from the current data on each request.
 */
export async function invoicePdf(
  db: Db,
  auth: AuthContext,
  id: number,
  query: { timesheet?: boolean } = {},
  dataVersion?: string,
): Promise<PdfBytes> {
  if (!query.timesheet) {
    const kept = await keptInvoiceDocument(db, auth.accountId, id, 'pdf', dataVersion);
    if (kept) return kept;
  }
  const row = await getRow(db, auth, id);
  if (isMaster(row.type)) {
    throw new AppError('unprocessable', 'A plan master has no document of its own; its invoices have PDFs');
  }
  if (query.timesheet) return withTimesheet(db, auth, row);
  if (row.external && row.file_id) {
    const { row: file, data } = await getFileBytes(db, auth, row.file_id);
    return { data, filename: file.name, sha256: file.sha256 };
  }
  const booked = row.status === 'booked';
  const doc: PdfDocument =
    booked && row.document ? JSON.parse(row.document) : await documentFor(db, auth.accountId, row);
  const data = await renderDocumentPdf(doc, { logo: await logoBytes(db, auth.accountId, doc) });
  const pdf = asDownload(data, `${row.invoice_number ?? `draft-${row.id}`}.pdf`);
  return booked
    ? keepDocument(
        db,
        auth.accountId,
        { kind: 'outgoing_invoice', id: row.id, format: 'pdf' },
        pdf,
        'application/pdf',
      )
    : pdf;
}

/**
 * The PDF with the timesheet pages appended: rendered on each request from what the plain PDF
 * prints (for a booked invoice its frozen document), never kept, so the kept plain PDF stays
 * the one every plain download gets.
 */
async function withTimesheet(db: Db, auth: AuthContext, row: InvoiceRow): Promise<PdfBytes> {
  if (row.external)
    throw new AppError('unprocessable', 'An uploaded invoice is its own file: it has no timesheet pages');
  const timesheet = await timesheetRows(db, auth, row.id);
  const doc: PdfDocument =
    row.status === 'booked' && row.document
      ? JSON.parse(row.document)
      : await documentFor(db, auth.accountId, row);
  const data = await renderDocumentPdf(
    { ...doc, timesheet },
    { logo: await logoBytes(db, auth.accountId, doc) },
  );
  return asDownload(data, `${row.invoice_number ?? `draft-${row.id}`}-timesheet.pdf`);
}
