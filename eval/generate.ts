import { type Lang, randomInvoice, type Truth, truthOf } from './invoice-data.js';
import { HELD_OUT, TUNED } from './layouts.js';
import { Rng } from './random.js';
import { FONTS, Sheet } from './templates.js';

export interface GeneratedPdf {
  name: string;
  template: string;
  lang: Lang;
  font: string;
  pages: number;
  pdf: Buffer;
  truth: Truth;
}

/** Seeds of the development set and of the held-out set ("documents never seen"). */
export const DEV_SEED = 11;
export const HELD_OUT_SEED = 90_210;

/**
 * Invoices with a text layer in varied layouts, languages, fonts, date and number formats,
 * one or several pages (totals on the last), credit notes and prepayments, each with its
 * ground truth. `heldOut` uses the held-out templates as well as the tuned ones.
 */
export async function generateTextPdfs(opts: {
  seed: number;
  count: number;
  heldOut?: boolean;
}): Promise<GeneratedPdf[]> {
  const rng = new Rng(opts.seed);
  const layouts = Object.entries(opts.heldOut ? { ...TUNED, ...HELD_OUT } : TUNED);
  const out: GeneratedPdf[] = [];
  for (let i = 0; i < opts.count; i++) {
    // Held-out runs take every second document from the held-out templates.
    const [template, layout] =
      opts.heldOut && i % 2 === 0 ? rng.pick(Object.entries(HELD_OUT)) : rng.pick(layouts);
    const lang = rng.pick<Lang>(['de', 'de', 'en', 'fr']);
    const font = rng.pick(FONTS);
    const multipage = rng.chance(0.15);
    const data = randomInvoice(rng, lang, {
      credit: rng.chance(0.12),
      prepaid: rng.chance(0.15),
      items: multipage ? rng.int(45, 70) : undefined,
    });
    const sheet = new Sheet(data, rng, font);
    layout(sheet);
    const pages = sheet.pdf.bufferedPageRange().count;
    const pdf = await sheet.end();
    out.push({ name: `${template}-${lang}-${i}`, template, lang, font, pages, pdf, truth: truthOf(data) });
  }
  return out;
}
