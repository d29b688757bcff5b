import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SMALL_INVOICE, smallInvoicePdf } from '../../eval/scan-fixtures.js';
import { scanPdf } from '../../eval/scans.js';
import { recognize } from '../../src/modules/incoming-invoices/ocr/engine.js';
import { imageInfo } from '../../src/modules/incoming-invoices/ocr/image-info.js';
import { createOcrReader, type OcrReader } from '../../src/modules/incoming-invoices/ocr/ocr.pool.js';
import type { OcrResult } from '../../src/modules/incoming-invoices/ocr/ocr-job.js';

const wordsOf = (p: { words: { text: string }[] }) => p.words.map((w) => w.text).join(' ');

function pagesOf(read: Awaited<ReturnType<OcrReader['read']>>) {
  assert.ok(read.ok, JSON.stringify(read));
  return read as Extract<OcrResult, { ok: true }>;
}

describe('OCR of a scan (tesseract.js, offline, in a worker process)', () => {
  let scan: Awaited<ReturnType<typeof scanPdf>>;
  let ocr: OcrReader;
  before(async () => {
    scan = await scanPdf(await smallInvoicePdf(), {
      rotateDeg: 1.5,
      blurPx: 0.6,
      noise: 0.001,
      paper: 245,
      seed: 3,
    });
    ocr = createOcrReader({ threads: 1, timeoutMs: 60_000, memoryMb: 256, maxPages: 5 });
  });
  after(() => ocr.close());

  it('reads the words of a slightly rotated, noisy PNG with boxes from the top left', async () => {
    const info = imageInfo(scan.images[0]!)!;
    const read = pagesOf(await ocr.read(scan.images[0]!));
    const page = read.pages[0]!;
    assert.equal(page.page, 1);
    assert.deepEqual([page.width, page.height], [info.width, info.height]);
    const text = wordsOf(page);
    for (const expected of [SMALL_INVOICE.number, SMALL_INVOICE.date, SMALL_INVOICE.gross, 'Gesamtbetrag'])
      assert.ok(text.includes(expected), `${expected} in ${text}`);
    const number = page.words.find((w) => w.text === SMALL_INVOICE.number)!;
    const total = page.words.find((w) => w.text === 'Gesamtbetrag')!;
    const label = page.words.find((w) => w.text.startsWith('Rechnungsnummer'))!;
    assert.ok(number.y < total.y, 'the number is printed above the total');
    // Straightened before reading: a label and its value 30 mm apart sit on one row.
    assert.ok(Math.abs(label.y - number.y) < number.h / 2, `${label.y} vs ${number.y}`);
    assert.ok(number.confidence! > 0.7 && number.confidence! <= 1);
    for (const w of page.words) assert.ok(w.x >= 0 && w.y >= 0 && w.x + w.w <= page.width + 1);
    assert.equal(read.ocrMs.length, 1);
  });

  it('reads the pages of an image-only PDF', async () => {
    const read = pagesOf(await ocr.read(scan.pdf));
    assert.equal(read.pageCount, 1);
    assert.ok(wordsOf(read.pages[0]!).includes(SMALL_INVOICE.number));
  });

  it('reads a scan turned upside down', async () => {
    const { scanImage } = await import('../../eval/scans.js');
    const { createCanvas, loadImage } = await import('@napi-rs/canvas');
    const img = await loadImage(await scanImage(scan.images[0]!, {}));
    const c = createCanvas(img.width, img.height);
    const ctx = c.getContext('2d');
    ctx.translate(img.width, img.height);
    ctx.rotate(Math.PI);
    ctx.drawImage(img, 0, 0);
    const read = pagesOf(await ocr.read(await c.encode('png')));
    assert.ok(wordsOf(read.pages[0]!).includes(SMALL_INVOICE.number), wordsOf(read.pages[0]!));
  });

  it('refuses what is not an image', async () => {
    const read = await ocr.read(Buffer.from('plain text'));
    assert.deepEqual(read, { ok: false, error: 'not a PDF, PNG, JPEG or TIFF file' });
  });

  it('never runs tesseract in the main thread', async () => {
    await assert.rejects(recognize(scan.images[0]!, { width: 1, height: 1 }), /worker process/);
  });
});
