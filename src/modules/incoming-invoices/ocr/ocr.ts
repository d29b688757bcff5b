import { loadImage } from '@napi-rs/canvas';
import type { PageWords } from '../extraction.model.js';
import { recognize } from './engine.js';
import { imageInfo } from './image-info.js';
import { renderPage, withPdf } from './pdf-pages.js';
import { prepareCanvas } from './raster.js';

export class OcrError extends Error {}

/** A page read, and how long it took (rendering, preparing and recognising), for the eval. */
export interface TimedPage {
  words: PageWords;
  ms: number;
}

/**
 * Reads a scanned image (PNG, JPEG, TIFF) into words with boxes in pixels, top-left origin.
 * A TIFF with several pages is read on its first page only (tesseract.js reads no other):
 * `tiffPages` in `imageInfo` tells the caller to warn.
 */
export async function ocrImage(bytes: Buffer): Promise<TimedPage> {
  const started = performance.now();
  const info = imageInfo(bytes);
  if (!info) throw new OcrError('not a PNG, JPEG or TIFF image');
  // @napi-rs/canvas decodes PNG and JPEG natively; a TIFF goes to tesseract as it is and is
  // straightened there.
  if (info.format === 'tiff')
    return { words: await recognize(bytes, info, 1, true), ms: performance.now() - started };
  const image = await loadImage(bytes);
  const prepared = prepareCanvas(image, image.width, image.height);
  return { words: await recognize(prepared.pgm, prepared, 1), ms: performance.now() - started };
}

/** Reads the given pages (1-based) of a PDF whose pages are images (scans), one after another. */
export function ocrPdfPages(pdfBytes: Uint8Array, pages: number[]): Promise<TimedPage[]> {
  return withPdf(pdfBytes, async (pdf) => {
    const out: TimedPage[] = [];
    // One page rendered at a time: a 300-dpi page is 35 MB of pixels.
    for (const n of pages) {
      if (n < 1 || n > pdf.numPages) continue;
      const started = performance.now();
      const prepared = await preparedPage(pdf, n);
      out.push({ words: await recognize(prepared.pgm, prepared, n), ms: performance.now() - started });
    }
    return out;
  });
}

/** Page `n` rendered and prepared; its canvas is garbage by the time tesseract reads the page. */
async function preparedPage(pdf: Parameters<Parameters<typeof withPdf>[1]>[0], n: number) {
  const { canvas, width, height } = await renderPage(pdf, n);
  return prepareCanvas(canvas, width, height);
}
