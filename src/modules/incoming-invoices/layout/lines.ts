import type { PageWords, Word } from '../extraction.model.js';

/**
 * A run of words on one line with no wide gap between them: what a reader sees as one cell
 * or phrase ("Rechnungsdatum:", "06.12.2026", "Muster GmbH · Hauptstr. 1 · 10115 Berlin").
 */
export interface Segment {
  text: string;
  x: number;
  y: number;
  w: number;
  h: number;
  /** Lowest OCR confidence of its words; 1 for a text layer. */
  confidence: number;
}

export interface Line {
  page: number;
  /** Index of the line in reading order across the whole document. */
  index: number;
  y: number;
  h: number;
  segments: Segment[];
  /** The segments' text joined with a space. */
  text: string;
  /** The page's height, for "top of the page" and "footer" judgements. */
  pageHeight: number;
  pageWidth: number;
}

/**
 * A text layer's word box is the font's em; OCR's is the ink, from the tallest letter's top to
 * the lowest one's bottom: about three quarters of the em on most words ("Invoice", "F16022").
 * Gaps are judged against the em, or OCR's ordinary word spaces would split every phrase.
 */
const OCR_BOX_TO_EM = 1.35;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : 0;
};

/** OCR sets the cents of an amount apart after its decimal mark: "-233, 47 €" is -233,47 €. */
const splitCents = (prev: Word, word: Word): boolean =>
  word.confidence !== undefined && /\d[.,]$/.test(prev.text) && /^\d{2}(?:[€$£]|[.,;:)]?$)/.test(word.text);

function segment(words: Word[]): Segment {
  const x = Math.min(...words.map((w) => w.x));
  const right = Math.max(...words.map((w) => w.x + w.w));
  const y = Math.min(...words.map((w) => w.y));
  const bottom = Math.max(...words.map((w) => w.y + w.h));
  return {
    text: words
      .map((w, i) => (i > 0 && splitCents(words[i - 1]!, w) ? '' : ' ') + w.text)
      .join('')
      .trim(),
    x,
    y,
    w: right - x,
    h: bottom - y,
    confidence: Math.min(...words.map((w) => w.confidence ?? 1)),
  };
}

/**
 * Groups the words of each page into lines (words whose vertical middles are within half a
 * text height of each other) and each line into segments (split where the gap between two
 * words is wider than about one and a half spaces). Lines come in reading order.
 */
export function toLines(pages: PageWords[]): Line[] {
  const lines: Line[] = [];
  for (const page of pages) {
    const words = page.words.filter((w) => w.text.trim() !== '');
    const sorted = [...words].sort((a, b) => a.y + a.h / 2 - (b.y + b.h / 2) || a.x - b.x);
    const rows: Word[][] = [];
    for (const word of sorted) {
      const mid = word.y + word.h / 2;
      const row = rows.find((r) => {
        const rm = median(r.map((w) => w.y + w.h / 2));
        const rh = median(r.map((w) => w.h));
        return Math.abs(rm - mid) < Math.min(rh, word.h) * 0.5;
      });
      if (row) row.push(word);
      else rows.push([word]);
    }
    rows.sort((a, b) => median(a.map((w) => w.y)) - median(b.map((w) => w.y)));
    for (const row of rows) {
      row.sort((a, b) => a.x - b.x);
      const h = median(row.map((w) => w.h));
      const em = h * (row.some((w) => w.confidence !== undefined) ? OCR_BOX_TO_EM : 1);
      const segments: Segment[] = [];
      let current: Word[] = [];
      for (const word of row) {
        const prev = current[current.length - 1];
        // A word space is about a quarter to a third of the font size; columns are further apart.
        // A separator word ("Muster GmbH · IBAN … · BIC …") ends a segment as a wide gap does.
        const separator = /^[·•|]$/.test(word.text);
        // A cell does not end in a comma: "Apr 4, | 2016" is one date however wide OCR saw the gap.
        const gap = prev && /,$/.test(prev.text) ? em * 2 : em * 0.9;
        if ((prev && word.x - (prev.x + prev.w) > gap) || separator) {
          if (current.length) segments.push(segment(current));
          current = [];
        }
        if (!separator) current.push(word);
      }
      if (current.length) segments.push(segment(current));
      lines.push({
        page: page.page,
        index: lines.length,
        y: Math.min(...row.map((w) => w.y)),
        h,
        segments,
        text: segments.map((s) => s.text).join(' '),
        pageHeight: page.height,
        pageWidth: page.width,
      });
    }
  }
  return lines;
}
