import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createCanvas } from '@napi-rs/canvas';
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
