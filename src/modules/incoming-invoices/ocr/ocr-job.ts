import type { ExtractionWarning, PageWords } from '../extraction.model.js';
import { pdfPageWords } from '../layout/pdf-words.js';
import { imageInfo } from './image-info.js';
import { ocrImage, ocrPdfPages } from './ocr.js';

/** What an OCR thread is sent: the file, and for a PDF the cap on pages read. */
export interface OcrJob {
  data: Uint8Array;
  maxPages: number;
}

export type OcrResult =
  | {
      ok: true;
      pages: PageWords[];
      pageCount: number;
      warnings: ExtractionWarning[];
      /** Milliseconds per page OCR'd (rendering included), for logs and the eval. */
      ocrMs: number[];
    }
  | { ok: false; error: string };

const isPdf = (b: Buffer) => b.subarray(0, 1024).includes('%PDF-');

/** Reads a scan (image, or a PDF's pages without a text layer); never throws. */
export async function runOcrJob(job: OcrJob): Promise<OcrResult> {
  const data = Buffer.from(job.data.buffer, job.data.byteOffset, job.data.byteLength);
  try {
    if (isPdf(data)) return await fromPdf(data, job.maxPages);
    const info = imageInfo(data);
    if (!info) return { ok: false, error: 'not a PDF, PNG, JPEG or TIFF file' };
    const warnings: ExtractionWarning[] = [];
    if (info.pages > 1)
      warnings.push({
        code: 'pages_truncated',
        message: `only the first of the TIFF's ${info.pages} pages was read`,
      });
    const read = await ocrImage(data);
    return { ok: true, pages: [read.words], pageCount: info.pages, warnings, ocrMs: [read.ms] };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * OCRs the pages without text, up to `maxPages` of the document, and returns them with the
 * text-layer words of the other pages: the layout reader sees the whole document, in order.
 */
async function fromPdf(data: Buffer, maxPages: number): Promise<OcrResult> {
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const pdf = await getDocument({
    data: new Uint8Array(data),
    useSystemFonts: false,
    isEvalSupported: false,
    verbosity: 0,
  }).promise;
  let read: Awaited<ReturnType<typeof pdfPageWords>>;
  try {
    read = await pdfPageWords(pdf, maxPages);
  } finally {
    await pdf.destroy();
  }
  const warnings: ExtractionWarning[] = [];
  if (read.numPages > maxPages)
    warnings.push({
      code: 'pages_truncated',
      message: `${maxPages} of ${read.numPages} pages were read`,
    });
  const ocred = await ocrPdfPages(data, read.withoutText);
  const scanned = new Map(ocred.map((p) => [p.words.page, p.words]));
  const pages = read.pages.map((p) => scanned.get(p.page) ?? p);
  return { ok: true, pages, pageCount: read.numPages, warnings, ocrMs: ocred.map((p) => p.ms) };
}
