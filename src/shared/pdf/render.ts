import PDFDocument from 'pdfkit';
import { buildFacturXXml, FACTURX_FILENAME } from './facturx.js';
import { formatterFor } from './format.js';
import { drawGiroCode } from './girocode.js';
import {
  BOTTOM,
  type Ctx,
  drawFirstPageHead,
  drawPageFurniture,
  LEFT,
  PAGE,
  RIGHT,
  registerFonts,
  TOP,
} from './layout.js';
import { sampleDocument } from './sample.js';
import { drawExemptionNotes, drawParagraph, drawPositions, drawTotals } from './table.js';
import { drawTimesheet } from './timesheet.js';
import type { PdfDocument } from './types.js';
import { facturXXmp, XmpSafeString } from './xmp.js';

/** Kinds that are invoices in the EN 16931 sense and carry the XML once booked. */
const E_INVOICE_KINDS = new Set<PdfDocument['kind']>(['invoice', 'credit', 'deposit', 'partial', 'final']);

/** pdfkit supports AFRelationship, its typings do not list it yet. */
type AttachmentOptions = PDFKit.Mixins.PDFAttachmentOptions & { relationship?: string };

export function embedsFacturX(doc: PdfDocument): boolean {
  return doc.booked && E_INVOICE_KINDS.has(doc.kind);
}

/**
 * Renders a document to PDF bytes: A4, PDF/A-3b with embedded fonts. Booked invoices, credits,
 * deposits, partial and final invoices embed the EN 16931 XML as `factur-x.xml` (Factur-X /
 * ZUGFeRD 2.x, profile EN 16931), so accounting software reads them without OCR.
 */
export async function renderDocumentPdf(doc: PdfDocument, assets: { logo?: Buffer } = {}): Promise<Buffer> {
  // Built first: an inconsistent invoice fails before any drawing work is done.
  const xml = embedsFacturX(doc) ? buildFacturXXml(doc) : null;
  const fmt = formatterFor(doc);
  const now = doc.changed_at ? new Date(doc.changed_at) : new Date();
  const heading = doc.number ? `${doc.title} ${doc.number}` : doc.title;
  const pdf = new PDFDocument({
    size: 'A4',
    margins: { top: TOP, bottom: PAGE.height - BOTTOM, left: LEFT, right: PAGE.width - RIGHT },
    pdfVersion: '1.7',
    subset: 'PDF/A-3b',
    // No default font: pdfkit would otherwise load Helvetica, which PDF/A cannot embed.
    font: null as unknown as string,
    lang: fmt.lang === 'de' ? 'de-DE' : 'en-GB',
    displayTitle: true,
    bufferPages: true,
    info: {
      Title: new XmpSafeString(heading) as unknown as string,
      Author: new XmpSafeString(doc.seller.name) as unknown as string,
      Subject: new XmpSafeString(`${heading} – ${doc.buyer.name}`) as unknown as string,
      Creator: 'pm-invoicing-service',
      CreationDate: now,
    },
  });
  registerFonts(pdf);

  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
  });

  const ctx: Ctx = { pdf, doc, fmt, y: TOP, logo: doc.logo ? assets.logo : undefined };
  drawFirstPageHead(ctx);
  drawParagraph(ctx, doc.intro_text);
  drawPositions(ctx);
  drawTotals(ctx);
  drawExemptionNotes(ctx);
  if (doc.service_date_is_invoice_date) drawParagraph(ctx, fmt.labels.serviceDateIsInvoiceDate, 8.5);
  drawParagraph(ctx, doc.payment_terms);
  if (doc.giro_code) drawGiroCode(ctx, doc.giro_code);
  drawParagraph(ctx, doc.closing_text);
  if (doc.timesheet?.length) drawTimesheet(ctx, doc.timesheet);
  drawPageFurniture(ctx);

  if (xml) {
    const options: AttachmentOptions = {
      name: FACTURX_FILENAME,
      type: 'text/xml',
      description: 'Factur-X/ZUGFeRD invoice (EN 16931)',
      relationship: 'Alternative',
      creationDate: now,
      modifiedDate: now,
    };
    pdf.file(Buffer.from(xml, 'utf8'), options);
    pdf.appendXML(facturXXmp({ fileName: FACTURX_FILENAME, conformanceLevel: 'EN 16931' }));
  }
  pdf.end();
  return done;
}

/** EN 16931 Cross Industry Invoice XML (Factur-X profile EN 16931) of a document. */
export function buildFacturX(doc: PdfDocument): string {
  return buildFacturXXml(doc);
}

/**
 * The first render of a process parses the fonts' OpenType tables (about a second); a server
 * may call this at start-up so that the first download does not pay for it.
 */
export async function warmUpPdfRenderer(): Promise<void> {
  await renderDocumentPdf(sampleDocument({ lines: 1 }));
}
