import type { PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { PageWords, Word } from '../extraction.model.js';

export interface PdfWords {
  /** The pages read (at most `maxPages`), each with its words; pages without text have none. */
  pages: PageWords[];
  /** Pages in the document. */
  numPages: number;
  /** 1-based numbers of the pages read that carry no text (scanned pages: OCR reads them). */
  withoutText: number[];
}

/** [a, b, c, d, e, f] of a PDF matrix: m1 × m2 as pdf.js composes them. */
function multiply(m1: number[], m2: number[]): number[] {
  return [
    m1[0]! * m2[0]! + m1[2]! * m2[1]!,
    m1[1]! * m2[0]! + m1[3]! * m2[1]!,
    m1[0]! * m2[2]! + m1[2]! * m2[3]!,
    m1[1]! * m2[2]! + m1[3]! * m2[3]!,
    m1[0]! * m2[4]! + m1[2]! * m2[5]! + m1[4]!,
    m1[1]! * m2[4]! + m1[3]! * m2[5]! + m1[5]!,
  ];
}

/**
 * The words of a PDF's text layer with their boxes, the way the layout reader and OCR both
 * see a page: origin at the top left, y downwards, in PDF points. pdf.js gives text in runs
 * ("items") of one font; a run is split at spaces and each word gets the share of the run's
 * width its characters take, which is close enough to tell columns and cells apart.
 */
export async function pdfPageWords(pdf: PDFDocumentProxy, maxPages: number): Promise<PdfWords> {
  const pages: PageWords[] = [];
  const withoutText: number[] = [];
  for (let n = 1; n <= Math.min(pdf.numPages, maxPages); n++) {
    const page = await pdf.getPage(n);
    const viewport = page.getViewport({ scale: 1 });
    const content = await page.getTextContent();
    const words: Word[] = [];
    for (const item of content.items) {
      if (!('str' in item) || item.str.trim() === '') continue;
      const t = multiply(viewport.transform, item.transform);
      const size = Math.hypot(t[2]!, t[3]!) || Math.abs(item.height) || 10;
      // The run's extent along its baseline, in page units (item.width is in text space scaled
      // by the font matrix already; the viewport only flips and offsets at scale 1).
      const runWidth = Math.abs(item.width) || size * 0.5 * item.str.length;
      const perChar = runWidth / item.str.length;
      const baseline = t[5]!;
      const top = baseline - size * 0.8;
      for (const m of item.str.matchAll(/\S+/g)) {
        words.push({
          text: m[0],
          x: t[4]! + m.index * perChar,
          y: top,
          w: m[0].length * perChar,
          h: size,
        });
      }
    }
    if (words.length === 0) withoutText.push(n);
    pages.push({ page: n, width: viewport.width, height: viewport.height, words });
    page.cleanup();
  }
  return { pages, numPages: pdf.numPages, withoutText };
}
