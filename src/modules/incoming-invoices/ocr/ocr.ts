import type { PageWords } from '../extraction.model.js';
import { recognize } from './engine.js';
import { imageInfo } from './image-info.js';
import { renderPdfPages } from './pdf-pages.js';

export class OcrError extends Error {}

/**
 * Reads a scanned image (PNG, JPEG, TIFF) into words with boxes in pixels, top-left origin.
 * A TIFF with several pages is read on its first page only (tesseract.js reads no other):
 * `tiffPages` in `imageInfo` tells the caller to warn.
 */
export async function ocrImage(bytes: Buffer): Promise<PageWords> {
  const info = imageInfo(bytes);
  if (!info) throw new OcrError('not a PNG, JPEG or TIFF image');
  return recognize(bytes, info, 1);
}

/** Reads the given pages (1-based) of a PDF whose pages are images (scans), one after another. */
export async function ocrPdfPages(pdfBytes: Uint8Array, pages: number[]): Promise<PageWords[]> {
  const out: PageWords[] = [];
  // One page rendered at a time: a 300-dpi page is 35 MB of pixels.
  for (const n of pages) {
    const [rendered] = await renderPdfPages(pdfBytes, [n]);
    if (!rendered) continue;
    out.push(await recognize(rendered.png, rendered, n));
  }
  return out;
}
