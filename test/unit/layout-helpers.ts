import type { PageWords, Word } from '../../src/modules/incoming-invoices/extraction.model.js';

/**
 * A page from text runs placed like a PDF would place them: `[x, y, text]` in points (top left
 * origin), 10 pt type, words split at spaces with 5 pt per character.
 */
export function page(runs: [number, number, string][], n = 1, size = 10): PageWords {
  const words: Word[] = [];
  const perChar = size * 0.5;
  for (const [x, y, text] of runs)
    for (const m of text.matchAll(/\S+/g))
      words.push({ text: m[0], x: x + m.index * perChar, y, w: m[0].length * perChar, h: size });
  return { page: n, width: 595, height: 842, words };
}
