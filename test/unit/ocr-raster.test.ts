import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createCanvas } from '@napi-rs/canvas';
import { toLines } from '../../src/modules/incoming-invoices/layout/lines.js';
import { cleanNumber } from '../../src/modules/incoming-invoices/ocr/engine.js';
import { despeckle, otsu, prepareCanvas, skewAngle } from '../../src/modules/incoming-invoices/ocr/raster.js';

/** A page of dark text-like bars, turned by `deg` clockwise. */
function barsPage(deg: number, width = 1200, height = 1600) {
  const c = createCanvas(width, height);
  const ctx = c.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, width, height);
  ctx.translate(width / 2, height / 2);
  ctx.rotate((deg * Math.PI) / 180);
  ctx.fillStyle = '#111';
  for (let y = -600; y < 600; y += 48) for (let x = -450; x < 450; x += 90) ctx.fillRect(x, y, 70, 22);
  return c;
}

describe('raster preparation for OCR', () => {
  it('finds the skew of text lines within a tenth of a degree', () => {
    for (const deg of [-2, -0.7, 0, 1.3, 3]) {
      const page = prepareCanvas(barsPage(deg), 1200, 1600);
      assert.ok(Math.abs(page.skewDeg - deg) <= 0.15, `${deg}: found ${page.skewDeg}`);
    }
  });

  it('straightens the page it hands to tesseract', () => {
    const page = prepareCanvas(barsPage(2), 1200, 1600);
    const grey = page.pgm.subarray(page.pgm.length - 1200 * 1600);
    assert.ok(Math.abs(skewAngle(grey, 1200, 1600)) <= 0.15);
    assert.ok(page.pgm.subarray(0, 20).toString('latin1').startsWith('P5\n1200 1600\n255\n'));
  });

  it('removes single dark pixels and keeps every mark of two pixels and more', () => {
    const w = 50;
    const grey = new Uint8Array(w * w).fill(240);
    grey[10 * w + 10] = 20; // a speck
    grey[30 * w + 30] = grey[30 * w + 31] = 20; // a full stop's worth, however small
    for (let x = 5; x < 45; x++) grey[40 * w + x] = 30; // a rule
    assert.ok(otsu(grey) >= 30 && otsu(grey) < 240);
    assert.equal(despeckle(grey, w, w), 1);
    assert.equal(grey[10 * w + 10], 255);
    assert.equal(grey[30 * w + 30], 20);
    assert.equal(grey[40 * w + 20], 30);
  });
});

describe('OCR words for the layout reader', () => {
  it('takes a run of punctuation with a dot in a number for the dot, and leaves amounts alone', () => {
    assert.equal(cleanNumber('12:.7.25'), '12.7.25');
    assert.equal(cleanNumber('1.234,56'), '1.234,56');
    assert.equal(cleanNumber('Datum:'), 'Datum:');
    assert.equal(cleanNumber('22,;5'), '22,;5');
  });

  it("keeps OCR's ordinary word spaces inside a phrase and splits at a column gap", () => {
    // Boxes as tesseract gives them at 300 dpi for 14 pt: ink 36 px high, spaces 36 px wide.
    const word = (text: string, x: number, w: number) => ({ text, x, y: 833, w, h: 36, confidence: 0.95 });
    const [line] = toLines([
      {
        page: 1,
        width: 2480,
        height: 3508,
        words: [
          word('Invoice', 212, 222),
          word('F16022', 470, 190),
          word('dated', 696, 162),
          word('Total', 1400, 150),
        ],
      },
    ]);
    assert.deepEqual(
      line!.segments.map((s) => s.text),
      ['Invoice F16022 dated', 'Total'],
    );
  });
});
