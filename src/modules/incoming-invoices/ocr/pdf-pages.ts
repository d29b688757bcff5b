import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Canvas, createCanvas } from '@napi-rs/canvas';

/** Scans are read at this resolution: enough for 8-point print, the size OCR was trained on. */
export const OCR_DPI = 300;
/** A page larger than this (A0 posters) is rendered smaller: memory, not detail, is the limit. */
const MAX_PIXELS = 36_000_000;
/**
 * An image larger than this (an A3 page at 600 dpi) is left out of the page. pdf-guard.ts
 * bounds what Flate data inflates to, but a JPEG's pixels are not inflated there: a few KB
 * may declare 60,000 × 60,000 of them, which pdf.js would decode, four bytes each.
 */
const MAX_IMAGE_PIXELS = 72_000_000;

const require = createRequire(import.meta.url);
/** pdf.js draws the 14 standard fonts from its own files; without them text is left out. */
const standardFontDataUrl = `${pathToFileURL(join(dirname(require.resolve('pdfjs-dist/package.json')), 'standard_fonts')).pathname}/`;

export interface RenderedPage {
  page: number;
  png: Buffer;
  width: number;
  height: number;
}

type PdfDocument = Awaited<
  ReturnType<typeof import('pdfjs-dist/legacy/build/pdf.mjs').getDocument>['promise']
>;

/** Opens a PDF with pdf.js for rendering, hands it to `use` and always closes it. */
export async function withPdf<T>(pdfBytes: Uint8Array, use: (pdf: PdfDocument) => Promise<T>): Promise<T> {
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const pdf = await getDocument({
    data: new Uint8Array(pdfBytes),
    standardFontDataUrl,
    useSystemFonts: false,
    isEvalSupported: false,
    maxImageSize: MAX_IMAGE_PIXELS,
    verbosity: 0,
  }).promise;
  try {
    return await use(pdf);
  } finally {
    await pdf.destroy();
  }
}

/**
 * Renders page `n` (1-based) at 300 dpi with pdf.js on @napi-rs/canvas (prebuilt, from npm).
 * Rendering rather than lifting out the embedded image covers every scan the same way: JPEG,
 * JBIG2, CCITT or Flate images, several strips per page, a rotated page, a stamp over the scan.
 */
export async function renderPage(
  pdf: PdfDocument,
  n: number,
): Promise<{ canvas: Canvas; width: number; height: number }> {
  const page = await pdf.getPage(n);
  const base = page.getViewport({ scale: 1 });
  let scale = OCR_DPI / 72;
  const pixels = base.width * base.height * scale * scale;
  if (pixels > MAX_PIXELS) scale *= Math.sqrt(MAX_PIXELS / pixels);
  const viewport = page.getViewport({ scale });
  const width = Math.ceil(viewport.width);
  const height = Math.ceil(viewport.height);
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  // A scan page may leave parts unpainted: paper is white, not transparent black.
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, width, height);
  await page.render({ canvasContext: ctx as never, viewport }).promise;
  page.cleanup();
  return { canvas, width, height };
}

/** Renders the given pages (1-based; numbers beyond the document are skipped) to PNG at 300 dpi. */
export function renderPdfPages(pdfBytes: Uint8Array, pages: number[]): Promise<RenderedPage[]> {
  return withPdf(pdfBytes, async (pdf) => {
    const out: RenderedPage[] = [];
    for (const n of pages) {
      if (n < 1 || n > pdf.numPages) continue;
      const { canvas, width, height } = await renderPage(pdf, n);
      out.push({ page: n, png: await canvas.encode('png'), width, height });
    }
    return out;
  });
}
