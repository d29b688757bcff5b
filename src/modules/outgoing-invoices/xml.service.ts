import type { Db } from '../../db/index.js';
import type { AuthContext } from '../../plugins/auth.js';
import { AppError } from '../../shared/errors.js';
import { buildFacturXXml, XRECHNUNG_GUIDELINE } from '../../shared/pdf/facturx.js';
import type { PdfDocument } from '../../shared/pdf/types.js';
import { buildUblXml } from '../../shared/pdf/ubl.js';
import { isMaster } from './invoices.domain.js';
import { getRow } from './invoices.service.js';
import { keepDocument, keptInvoiceDocument } from './kept-documents.service.js';
import { asDownload, documentFor, type PdfBytes } from './pdf.service.js';

export type XmlSyntax = 'ubl' | 'cii';

/**
 * The booked invoice as an XRechnung 3.0 e-invoice, UBL 2.1 or UN/CEFACT CII, made from the
 * document frozen at booking: the same content the PDF prints and embeds, byte for byte on
 * every download (made at the first request and kept: kept-documents.service.ts). Drafts have
 * no number and may still change: 409.
 */
export async function invoiceXml(
  db: Db,
  auth: AuthContext,
  id: number,
  syntax: XmlSyntax,
): Promise<PdfBytes> {
  const kept = await keptInvoiceDocument(db, auth.accountId, id, syntax);
  if (kept) return kept;
  const row = await getRow(db, auth, id);
  if (isMaster(row.type)) {
    throw new AppError('unprocessable', 'A plan master has no document of its own; its invoices have XML');
  }
  if (row.status !== 'booked' || row.external) {
    throw new AppError(
      'invoice_not_booked',
      row.external
        ? 'An uploaded invoice has only its uploaded PDF; no e-invoice is made from it'
        : 'Only booked invoices have an e-invoice: book it first',
    );
  }
  // Imported booked invoices have no frozen document: like their PDF, made from the data as it is.
  const doc: PdfDocument = row.document
    ? JSON.parse(row.document)
    : await documentFor(db, auth.accountId, row);
  const xml =
    syntax === 'cii' ? buildFacturXXml(doc, XRECHNUNG_GUIDELINE) : buildUblXml(doc, XRECHNUNG_GUIDELINE);
  const bytes = asDownload(Buffer.from(xml, 'utf8'), `${row.invoice_number}-${syntax}.xml`);
  return keepDocument(
    db,
    auth.accountId,
    { kind: 'outgoing_invoice', id: row.id, format: syntax },
    bytes,
    'application/xml',
  );
}
