import { createHash } from 'node:crypto';
import type { Db } from '../../db/index.js';
import { transact } from '../../db/transact.js';
import type { AuthContext } from '../../plugins/auth.js';
import { AppError } from '../../shared/errors.js';
import { renderDocumentPdf } from '../../shared/pdf/render.js';
import type { PdfDocument } from '../../shared/pdf/types.js';
import { getAccountLogo } from '../account/account.service.js';
import { accountProfile } from '../account/profile.public.js';
import { bytesToUpload, getFileBytes, storeFile } from '../files/files.service.js';
import { effectiveDueDate, isMaster } from './invoices.domain.js';
import { contactName, invoiceToPdf } from './invoices.pdf.js';
import type { InvoiceRow } from './invoices.repository.js';
import * as repo from './invoices.repository.js';
import { getRow } from './invoices.service.js';
import { type InvoiceView, loadView } from './invoices.views.js';

export interface PdfBytes {
  data: Buffer;
  filename: string;
  sha256: string;
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** What the PDF of an invoice shows now: sender and recipient as they are, totals, deductions. */
export async function documentFor(
  db: Db,
  accountId: number,
  row: InvoiceRow,
  view?: InvoiceView,
): Promise<PdfDocument> {
  const v = view ?? (await loadView(db, accountId, row));
  const [account, client, credited, contact] = await Promise.all([
    repo.findAccount(db, accountId),
    row.client_id ? repo.findClientRow(db, accountId, row.client_id) : undefined,
    row.credited_invoice_id ? repo.findInvoice(db, accountId, row.credited_invoice_id) : undefined,
    row.contact_id ? repo.findContactName(db, accountId, row.contact_id) : undefined,
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
      attention: contact ? contactName(contact) : null,
      buyer_reference: row.buyer_reference ?? client?.buyer_reference ?? null,
    },
    accountProfile(account),
    client,
  );
}

/** The image the document names (kept by its hash, so a booked invoice finds the logo it was booked with). */
async function logoBytes(db: Db, accountId: number, doc: PdfDocument): Promise<Buffer | undefined> {
  if (!doc.logo) return undefined;
  return (await getAccountLogo(db, accountId, doc.logo.sha256).catch(() => undefined))?.data;
}

/**
 * The PDF of an outgoing invoice. External invoices answer with their uploaded file. A booked
 * invoice prints what was frozen at booking, rendered once and kept, so every later download
 * gives the very same bytes; drafts are rendered from the current data on each request.
 */
export async function invoicePdf(db: Db, auth: AuthContext, id: number): Promise<PdfBytes> {
  const row = await getRow(db, auth, id);
  if (isMaster(row.type)) {
    throw new AppError('unprocessable', 'A plan master has no document of its own; its invoices have PDFs');
  }
  const keptId = row.external ? row.file_id : row.pdf_file_id;
  if (keptId) {
    const { row: file, data } = await getFileBytes(db, auth, keptId);
    return { data, filename: file.name, sha256: file.sha256 };
  }
  const booked = row.status === 'booked';
  const doc: PdfDocument =
    booked && row.document ? JSON.parse(row.document) : await documentFor(db, auth.accountId, row);
  const data = await renderDocumentPdf(doc, { logo: await logoBytes(db, auth.accountId, doc) });
  const filename = `${row.invoice_number ?? `draft-${row.id}`}.pdf`.replace(/[/\\]/g, '-');
  if (booked) {
    await transact(db, async (trx) => {
      const file = await storeFile(trx, auth, bytesToUpload(filename, 'application/pdf', data), {
        type: 'outgoing_invoice',
        id: row.id,
      });
      // Two first downloads at once: the first stored copy wins, the other is dropped.
      const kept = await trx
        .updateTable('outgoing_invoices')
        .set({ pdf_file_id: file.id })
        .where('id', '=', row.id)
        .where('pdf_file_id', 'is', null)
        .executeTakeFirst();
      if (Number(kept.numUpdatedRows) === 0)
        await trx.deleteFrom('files').where('id', '=', file.id).execute();
    });
  }
  return { data, filename, sha256: sha256(data) };
}
