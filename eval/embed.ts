import PDFDocument from 'pdfkit';

/** Attachment names seen on Factur-X / ZUGFeRD / XRechnung hybrid PDFs, and one that is not. */
export const ATTACHMENT_NAMES = [
  'factur-x.xml',
  'zugferd-invoice.xml',
  'ZUGFeRD-invoice.xml',
  'xrechnung.xml',
  'invoice.xml',
];

/**
 * A hybrid PDF: a visible page saying what it is and the e-invoice XML attached (as Factur-X
 * does, relationship "Alternative"). The page carries no totals, so only the XML can score.
 */
export function pdfWithXml(xml: string, name: string, title: string): Promise<Buffer> {
  const pdf = new PDFDocument({ size: 'A4', margin: 50 });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve) => pdf.on('end', () => resolve(Buffer.concat(chunks))));
  pdf.on('data', (c: Buffer) => chunks.push(c));
  pdf.font('Helvetica').fontSize(14).text(title);
  pdf.fontSize(9).text('The structured invoice data are attached to this PDF.');
  pdf.file(Buffer.from(xml, 'utf8'), {
    name,
    type: 'text/xml',
    relationship: 'Alternative',
  } as PDFKit.Mixins.PDFAttachmentOptions);
  pdf.end();
  return done;
}
