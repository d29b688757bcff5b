import { type Canvas, createCanvas, type Image } from '@napi-rs/canvas';

/**
 * A page prepared for tesseract, in the thread that reads it: grey, straightened and cleaned
 * here in a few hundred milliseconds, so that tesseract does one pass over it instead of three
 * (tesseract.js's `rotateAuto` lays the page out, sets the image again turned and lays it out
 * a second time; a speckled page made it read every speck as a letter candidate).
 */
export interface PreparedPage {
  /** Binary PGM (P5): leptonica reads it without inflating a PNG first. */
  pgm: Buffer;
  width: number;
  height: number;
  /** The skew found and undone, degrees clockwise. */
  skewDeg: number;
  /** Isolated dark pixels removed. */
  specks: number;
}

/** Skews below this are left alone: a turn blurs the glyphs a little and gains nothing. */
const MIN_SKEW_DEG = 0.1;
/** Flatbed scans are off by a few degrees; beyond this the page is crooked, not skewed. */
const MAX_SKEW_DEG = 5;

export function prepareCanvas(source: Canvas | Image, width: number, height: number): PreparedPage {
  const canvas = source as Canvas;
  const first =
    'getContext' in canvas
      ? canvas.getContext('2d').getImageData(0, 0, width, height).data
      : drawn(source, width, height, 0);
  let grey = toGrey(first, width * height);
  const skewDeg = skewAngle(grey, width, height);
  if (Math.abs(skewDeg) >= MIN_SKEW_DEG)
    grey = toGrey(drawn(source, width, height, -skewDeg), width * height);
  const specks = despeckle(grey, width, height);
  return { pgm: toPgm(grey, width, height), width, height, skewDeg, specks };
}

/** The image drawn on white paper, turned by `deg` about its centre. */
function drawn(source: Canvas | Image, width: number, height: number, deg: number): Uint8ClampedArray {
  const out = createCanvas(width, height);
  const ctx = out.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, width, height);
  ctx.translate(width / 2, height / 2);
  ctx.rotate((deg * Math.PI) / 180);
  ctx.drawImage(source, -width / 2, -height / 2);
  return ctx.getImageData(0, 0, width, height).data;
}

export function toGrey(rgba: Uint8ClampedArray, pixels: number): Uint8Array {
  const grey = new Uint8Array(pixels);
  // Integer luma (ITU-R 601 weights / 256): a float per pixel costs twice as much.
  for (let p = 0, j = 0; p < pixels; p++, j += 4)
    grey[p] = (rgba[j]! * 77 + rgba[j + 1]! * 150 + rgba[j + 2]! * 29) >> 8;
  return grey;
}

export function toPgm(grey: Uint8Array, width: number, height: number): Buffer {
  return Buffer.concat([Buffer.from(`P5\n${width} ${height}\n255\n`, 'latin1'), grey]);
}

/** Otsu's threshold from a sample of the pixels: ink at or below it, paper above. */
export function otsu(grey: Uint8Array): number {
  const hist = new Float64Array(256);
  for (let p = 0; p < grey.length; p += 7) hist[grey[p]!]!++;
  let total = 0;
  let sum = 0;
  for (let t = 0; t < 256; t++) {
    total += hist[t]!;
    sum += t * hist[t]!;
  }
  let below = 0;
  let sumBelow = 0;
  let best = -1;
  let threshold = 128;
  for (let t = 0; t < 255; t++) {
    below += hist[t]!;
    sumBelow += t * hist[t]!;
    const above = total - below;
    if (below === 0 || above === 0) continue;
    const spread = below * above * (sumBelow / below - (sum - sumBelow) / above) ** 2;
    if (spread > best) {
      best = spread;
      threshold = t;
    }
  }
  return threshold;
}

/**
 * Turns isolated dark pixels (no dark neighbour) into paper. Scanner dust and noise are such
 * single pixels; the smallest real mark, a full stop at 6 pt, is a blot of ten and more.
 */
export function despeckle(grey: Uint8Array, width: number, height: number): number {
  const t = otsu(grey);
  let removed = 0;
  for (let y = 1; y < height - 1; y++) {
    for (let p = y * width + 1, end = y * width + width - 1; p < end; p++) {
      if (grey[p]! > t) continue;
      const up = p - width;
      const down = p + width;
      if (
        grey[up - 1]! > t &&
        grey[up]! > t &&
        grey[up + 1]! > t &&
        grey[p - 1]! > t &&
        grey[p + 1]! > t &&
        grey[down - 1]! > t &&
        grey[down]! > t &&
        grey[down + 1]! > t
      ) {
        grey[p] = 255;
        removed++;
      }
    }
  }
  return removed;
}

/**
 * The skew of the text lines, degrees clockwise, by projection profiles: along the right angle
 * the dark pixels pile up in the rows of the text lines, so the sum of squared row counts
 * peaks. Works on every fourth pixel of every fourth row (a sixteenth of the page), coarse
 * steps first and then fine ones around the best.
 */
export function skewAngle(grey: Uint8Array, width: number, height: number): number {
  const t = Math.min(otsu(grey), 160);
  const xs: number[] = [];
  const ys: number[] = [];
  for (let y = 0; y < height; y += 4)
    for (let x = 0, row = y * width; x < width; x += 4)
      if (grey[row + x]! <= t) {
        xs.push(x);
        ys.push(y);
      }
  if (xs.length < 200) return 0;
  const margin = Math.ceil((width * Math.tan((MAX_SKEW_DEG * Math.PI) / 180)) / 4) + 1;
  const bins = new Float64Array(Math.ceil(height / 4) + 2 * margin + 1);
  const score = (deg: number): number => {
    const tan = Math.tan((deg * Math.PI) / 180);
    bins.fill(0);
    for (let k = 0; k < xs.length; k++) bins[Math.round((ys[k]! - xs[k]! * tan) / 4) + margin]!++;
    let s = 0;
    for (const b of bins) s += b * b;
    return s;
  };
  let best = 0;
  let bestScore = score(0);
  const search = (from: number, to: number, step: number) => {
    for (let d = from; d <= to + 1e-9; d += step) {
      const s = score(d);
      if (s > bestScore) {
        bestScore = s;
        best = d;
      }
    }
  };
  search(-MAX_SKEW_DEG, MAX_SKEW_DEG, 0.25);
  const coarse = best;
  search(coarse - 0.25, coarse + 0.25, 0.05);
  return Math.round(best * 100) / 100;
}
