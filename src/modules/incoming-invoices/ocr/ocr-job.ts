import type { ExtractionWarning, PageWords } from '../extraction.model.js';
import { imageInfo } from './image-info.js';
import { ocrImage, ocrPdfPages } from './ocr.js';

/** What an OCR thread is sent: the file, and for a PDF the cap on pages read. */
export interface OcrJob {
  data: Uint8Array;
  maxPages: number;
}

export type OcrResult =
  | { ok: true; pages: PageWords[]; pageCount: number; warnings: ExtractionWarning[] }
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
    return { ok: true, pages: [await ocrImage(data)], pageCount: info.pages, warnings };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

/** OCRs the pages without text, up to `maxPages` of the document. */
async function fromPdf(data: Buffer, maxPages: number): Promise<OcrResult> {
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const pdf = await getDocument({
    data: new Uint8Array(data),
    useSystemFonts: false,
    isEvalSupported: false,
    verbosity: 0,
  }).promise;
  const pageCount = pdf.numPages;
  const imagePages: number[] = [];
  try {
    for (let n = 1; n <= Math.min(pageCount, maxPages); n++) {
      const text = await (await pdf.getPage(n)).getTextContent();
      if (!text.items.some((item) => 'str' in item && item.str.trim() !== '')) imagePages.push(n);
    }
  } finally {
    await pdf.destroy();
  }
  const warnings: ExtractionWarning[] = [];
  if (pageCount > maxPages)
    warnings.push({
      code: 'pages_truncated',
      message: `${maxPages} of ${pageCount} pages were read`,
    });
  return { ok: true, pages: await ocrPdfPages(data, imagePages), pageCount, warnings };
}
