import PDFDocument from 'pdfkit';

/**
 * A small invoice page (A6 landscape) for OCR tests: few words, big enough type, so one
 * OCR pass takes about a second. The values are what a reader must find.
 */
export const SMALL_INVOICE = {
  supplier: 'Nordlicht Druck GmbH',
  number: 'RE-2026-0815',
  date: '14.03.2026',
  isoDate: '2026-03-14',
  gross: '1.190,00',
  grossDecimal: '1190.00',
};

export function smallInvoicePdf(): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ size: [420, 298], margin: 24 });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    const v = SMALL_INVOICE;
    doc.font('Helvetica-Bold').fontSize(14).text(v.supplier, 24, 24);
    doc.font('Helvetica').fontSize(9).text('Hafenstraße 5, 20457 Hamburg', 24, 44);
    doc.font('Helvetica-Bold').fontSize(13).text('Rechnung', 24, 80);
    doc.font('Helvetica').fontSize(10);
    doc.text('Rechnungsnummer:', 24, 110).text(v.number, 150, 110);
    doc.text('Rechnungsdatum:', 24, 126).text(v.date, 150, 126);
    doc.text('Nettobetrag', 220, 180).text('1.000,00 EUR', 320, 180);
    doc.text('USt. 19 %', 220, 196).text('190,00 EUR', 320, 196);
    doc.font('Helvetica-Bold').text('Gesamtbetrag', 220, 216).text(`${v.gross} EUR`, 320, 216);
    doc.end();
  });
}
