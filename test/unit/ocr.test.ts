import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SMALL_INVOICE, smallInvoicePdf } from '../../eval/scan-fixtures.js';
import { scanPdf } from '../../eval/scans.js';
import { closeEngine } from '../../src/modules/incoming-invoices/ocr/engine.js';
import { imageInfo } from '../../src/modules/incoming-invoices/ocr/image-info.js';
import { ocrImage, ocrPdfPages } from '../../src/modules/incoming-invoices/ocr/ocr.js';

const wordsOf = (p: { words: { text: string }[] }) => p.words.map((w) => w.text).join(' ');

describe('OCR of a scan (tesseract.js, offline)', () => {
  let scan: Awaited<ReturnType<typeof scanPdf>>;
  before(async () => {
    scan = await scanPdf(await smallInvoicePdf(), {
      rotateDeg: 1.5,
      blurPx: 0.6,
      noise: 0.001,
      paper: 245,
      seed: 3,
    });
  });
  after(() => closeEngine());

  it('reads the words of a slightly rotated, noisy PNG with boxes from the top left', async () => {
    const info = imageInfo(scan.images[0]!)!;
    const page = await ocrImage(scan.images[0]!);
    assert.equal(page.page, 1);
    assert.deepEqual([page.width, page.height], [info.width, info.height]);
    const text = wordsOf(page);
    for (const expected of [SMALL_INVOICE.number, SMALL_INVOICE.date, SMALL_INVOICE.gross, 'Gesamtbetrag'])
      assert.ok(text.includes(expected), `${expected} in ${text}`);
    const number = page.words.find((w) => w.text === SMALL_INVOICE.number)!;
    const total = page.words.find((w) => w.text === 'Gesamtbetrag')!;
    assert.ok(number.y < total.y, 'the number is printed above the total');
    assert.ok(number.confidence! > 0.7 && number.confidence! <= 1);
    for (const w of page.words) assert.ok(w.x >= 0 && w.y >= 0 && w.x + w.w <= page.width + 1);
  });

  it('reads the pages of an image-only PDF', async () => {
    const [page] = await ocrPdfPages(scan.pdf, [1]);
    assert.ok(page);
    assert.ok(wordsOf(page).includes(SMALL_INVOICE.number));
  });

  it('refuses what is not an image', async () => {
    await assert.rejects(ocrImage(Buffer.from('plain text')), /not a PNG, JPEG or TIFF/);
  });
});
