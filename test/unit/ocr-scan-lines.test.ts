import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import PDFDocument from 'pdfkit';
import { imagesToPdf } from '../../eval/scans.js';
import { DEFAULT_LIMITS, extractInvoiceData } from '../../src/modules/incoming-invoices/extraction.js';
import { fieldsFromLayout } from '../../src/modules/incoming-invoices/layout/fields.js';
import { createOcrReader, type OcrReader } from '../../src/modules/incoming-invoices/ocr/ocr.pool.js';
import { renderPdfPages } from '../../src/modules/incoming-invoices/ocr/pdf-pages.js';
import { pdfProblem } from '../../src/modules/incoming-invoices/pdf-guard.js';

/** An A4 invoice with a table of three lines, and two pages after it that say little. */
function tableInvoicePdf(): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ size: 'A4', margin: 50 });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    doc.font('Helvetica-Bold').fontSize(16).text('Nordlicht Druck GmbH', 50, 50);
    doc.font('Helvetica').fontSize(10).text('Hafenstraße 5, 20457 Hamburg', 50, 72);
    doc.font('Helvetica-Bold').fontSize(15).text('Rechnung', 50, 150);
    doc.font('Helvetica').fontSize(11);
    doc.text('Rechnungsnummer:', 50, 185).text('RE-2026-0815', 190, 185);
    doc.text('Rechnungsdatum:', 50, 203).text('14.03.2026', 190, 203);
    const cols = [50, 90, 330, 400, 490];
    const row = (y: number, cells: string[], bold = false) => {
      doc.font(bold ? 'Helvetica-Bold' : 'Helvetica');
      cells.forEach((c, i) => {
        if (i >= 2) doc.text(c, cols[i]!, y, { width: 60, align: 'right' });
        else doc.text(c, cols[i]!, y);
      });
    };
    row(260, ['Pos.', 'Bezeichnung', 'Menge', 'Einzelpreis', 'Gesamt'], true);
    doc.moveTo(50, 276).lineTo(550, 276).stroke();
    row(284, ['1', 'Flyer A5, 4/4-farbig', '2.000', '0,35', '700,00']);
    row(304, ['2', 'Plakate A1', '12', '25,00', '300,00']);
    row(324, ['3', 'Versandpauschale', '1', '15,00', '15,00']);
    doc.moveTo(50, 342).lineTo(550, 342).stroke();
    row(352, ['', '', '', 'Nettobetrag', '1.015,00']);
    row(370, ['', '', '', 'USt. 19 %', '192,85']);
    row(388, ['', '', '', 'Gesamtbetrag', '1.207,85'], true);
    doc.font('Helvetica').fontSize(10).text('Zahlbar innerhalb von 14 Tagen ohne Abzug.', 50, 450);
    for (const n of [2, 3]) {
      doc.addPage();
      doc.fontSize(10).text(`Seite ${n} von 3`, 50, 780);
    }
    doc.end();
  });
}

describe('a three-page lossless 300 dpi scan of an invoice with a table', () => {
  let scan: Buffer;
  let ocr: OcrReader;
  before(async () => {
    // Rendered at 300 dpi and kept as PNG (lossless): an RGB image and a soft mask per page,
    // 33 MiB decoded each, 100 MiB for the document.
    const pages = await renderPdfPages(await tableInvoicePdf(), [1, 2, 3]);
    scan = await imagesToPdf(pages.map((p) => p.png));
    ocr = createOcrReader({ threads: 1, timeoutMs: 240_000, memoryMb: 256, maxPages: 5 });
  });
  after(() => ocr.close());

  it('is screened as a document of three pages and read, its table included', async () => {
    // One budget for the whole document refused it.
    assert.equal(await pdfProblem(scan, DEFAULT_LIMITS.maxDecodedBytes), 'pdf_too_large');
    const text = await extractInvoiceData(scan, 'application/pdf');
    assert.deepEqual(
      text.warnings.map((w) => w.code),
      ['no_text_layer'],
    );
    assert.equal(text.needs_ocr, true);

    const read = await ocr.read(scan);
    assert.ok(read.ok, JSON.stringify(read));
    assert.equal(read.pageCount, 3);
    assert.equal(read.pages.length, 3);
    const got = fieldsFromLayout(read.pages, 'ocr');
    assert.equal(got.fields.invoice_number, 'RE-2026-0815');
    assert.equal(got.fields.date, '2026-03-14');
    assert.equal(got.fields.gross_total, '1207.85');
    assert.equal(got.fields.net_total, '1015.00');
    assert.deepEqual(got.fields.line_items, [
      { title: 'Flyer A5, 4/4-farbig', quantity: '2000', unit_price: '0.35', net_total: '700.00' },
      { title: 'Plakate A1', quantity: '12', unit_price: '25.00', net_total: '300.00' },
      { title: 'Versandpauschale', quantity: '1', unit_price: '15.00', net_total: '15.00' },
    ]);
    assert.deepEqual(got.provenance.line_items, { source: 'ocr', confidence: 0.7 });
  });
});
