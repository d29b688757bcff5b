import { Decimal } from 'decimal.js';

/** The language a document is written in, as far as its words tell: decides d/m vs m/d. */
export type Lang = 'de' | 'en' | 'fr';

const MONTHS: Record<string, number> = {
  jan: 1, january: 1, januar: 1, jänner: 1, janvier: 1, janv: 1,
  feb: 2, february: 2, februar: 2, février: 2, fevrier: 2, févr: 2, fev: 2,
  mar: 3, march: 3, märz: 3, maerz: 3, marz: 3, mars: 3, mär: 3,
  apr: 4, april: 4, avril: 4, avr: 4,
  may: 5, mai: 5,
  jun: 6, june: 6, juni: 6, juin: 6,
  jul: 7, july: 7, juli: 7, juillet: 7, juil: 7,
  aug: 8, august: 8, août: 8, aout: 8,
  sep: 9, sept: 9, september: 9, septembre: 9,
  oct: 10, october: 10, okt: 10, oktober: 10, octobre: 10,
  nov: 11, november: 11, novembre: 11,
  dec: 12, december: 12, dez: 12, dezember: 12, décembre: 12, decembre: 12, déc: 12,
  januari: 1, februari: 2, maart: 3, mei: 5, augustus: 8,
}; // biome-ignore format: a table

function iso(y: number, m: number, d: number): string | undefined {
  if (y < 100) y += 2000;
  if (y < 1990 || y > 2100 || m < 1 || m > 12 || d < 1 || d > 31) return undefined;
  const s = `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
  const t = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(t.getTime()) && t.toISOString().startsWith(s) ? s : undefined;
}

export interface FoundDate {
  value: string;
  /** False when the order of day and month was a guess (07/08/2026 in English). */
  sure: boolean;
  index: number;
  end: number;
}

const MONTH_NAMES = Object.keys(MONTHS)
  .sort((a, b) => b.length - a.length)
  .join('|');
const DATE_PATTERNS: RegExp[] = [
  /(?<![\d.])(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)/gu, // 2026-12-06
  /(?<![\d.])(\d{1,2})\.\s?(\d{1,2})\.\s?(\d{4}|\d{2})(?![\d,]|\.\d)/gu, // 06.12.2026, 6.12.26
  /(?<![\d/])(\d{1,2})\/(\d{1,2})\/(\d{4}|\d{2})(?![\d/])/gu, // 06/12/2026 (language decides)
  new RegExp(`(?<!\\d)(\\d{1,2})(?:\\.|er)?\\s*(${MONTH_NAMES})\\.?\\s*(\\d{4})(?!\\d)`, 'giu'), // 6 December 2026
  // December 6, 2026; August 3 , 2014 (a blank before the comma)
  new RegExp(
    `(?<![\\p{L}])(${MONTH_NAMES})\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?\\s*,?\\s+(\\d{4})(?!\\d)`,
    'giu',
  ),
  /(?<![\d-])(\d{1,2})-(\d{1,2})-(\d{4})(?![\d-])/gu, // 20-10-2015 (language decides, as with slashes)
  // 16,09,2013: dots OCR read as commas; day first, and unsure.
  /(?<![\d.,])(\d{1,2}),(\d{1,2}),(\d{4})(?![\d,]|\.\d)/gu,
];

/** Every date written in `text`, in the order they appear. */
export function findDates(text: string, lang: Lang): FoundDate[] {
  const out: FoundDate[] = [];
  DATE_PATTERNS.forEach((re, kind) => {
    for (const m of text.matchAll(re)) {
      let value: string | undefined;
      let sure = true;
      if (kind === 0) value = iso(+m[1]!, +m[2]!, +m[3]!);
      else if (kind === 1)
        value = m[3]!.length === 2 || m[3]!.length === 4 ? iso(+m[3]!, +m[2]!, +m[1]!) : undefined;
      else if (kind === 2 || kind === 5) {
        const a = +m[1]!;
        const b = +m[2]!;
        const y = +m[3]!;
        if (a > 12) value = iso(y, b, a);
        else if (b > 12) value = iso(y, a, b);
        else {
          // German and French write day first; English may be either (UK vs US).
          value = lang === 'en' ? iso(y, a, b) : iso(y, b, a);
          sure = lang !== 'en' || a === b;
        }
      } else if (kind === 3) value = iso(+m[3]!, MONTHS[m[2]!.toLowerCase()] ?? 0, +m[1]!);
      else if (kind === 4) value = iso(+m[3]!, MONTHS[m[1]!.toLowerCase()] ?? 0, +m[2]!);
      else if (kind === 6) {
        value = iso(+m[3]!, +m[2]!, +m[1]!);
        sure = false;
      }
      if (value) out.push({ value, sure, index: m.index, end: m.index + m[0].length });
    }
  });
  return out.sort((a, b) => a.index - b.index).filter((d, i, all) => i === 0 || d.index >= all[i - 1]!.end);
}

export interface FoundAmount {
  /** Decimal string with two places, sign kept. */
  value: string;
  index: number;
  end: number;
  /** A currency sign or code written next to it. */
  currency?: string;
}

const CURRENCY_SIGNS: Record<string, string> = {
  '€': 'EUR',
  $: 'USD',
  '£': 'GBP',
  CHF: 'CHF',
  Fr: 'CHF',
  '₹': 'INR',
  Rs: 'INR',
  'Rs.': 'INR',
};
const CUR = '(€|EUR|USD|\\$|£|GBP|CHF|INR|₹)';
/**
 * A whole amount written right after its currency ("Rs 1939", "₹1,939", "€ 1 200"): without the
 * sign it could be a quantity or a year, with it it is money.
 */
const WHOLE =
  /(?<![\p{L}\d.,/])(Rs\.?|₹|INR|€|\$|£|EUR|USD|GBP|CHF)\s?(\d{1,3}(?:([,'\u00a0\u202f ])\d{3})(?:\3\d{3})*|\d+)(?![\d]|[.,]\d)/gu;
const AMOUNT = new RegExp(
  `(?<![\\d.,/])(${CUR}\\s?)?([-−–]\\s?)?(\\d{1,3}(?:([.,'\\u00a0\\u202f ])\\d{3})(?:\\5\\d{3})*|\\d+)([.,])(\\d{2})(?![\\d]|[.,]\\d)(\\s?-)?(\\s?${CUR})?`,
  'gu',
);

/**
 * Every money amount in `text`: "1.234,56", "1,234.56", "1 234,56", "1234.56", with a sign or
 * currency before or after. Two decimals are required, so quantities and years are not
 * amounts; a group separator equal to the decimal separator is not an amount either.
 */
export function findAmounts(text: string): FoundAmount[] {
  const out: FoundAmount[] = [];
  for (const m of text.matchAll(AMOUNT)) {
    const group = m[5];
    const decimal = m[6]!;
    if (group && group === decimal) continue;
    const digits = m[4]!.replace(/[.,'\u00a0\u202f ]/g, '');
    const negative = Boolean(m[3] || m[8]);
    const value = new Decimal(`${digits}.${m[7]}`).times(negative ? -1 : 1).toFixed(2);
    const sign = m[2] ?? m[10];
    out.push({
      value,
      index: m.index,
      end: m.index + m[0].length,
      currency: sign ? (CURRENCY_SIGNS[sign] ?? sign) : undefined,
    });
  }
  for (const m of text.matchAll(WHOLE)) {
    const end = m.index + m[0].length;
    if (out.some((a) => a.index < end && m.index < a.end)) continue;
    const digits = m[2]!.replace(/[,'\u00a0\u202f ]/g, '');
    out.push({
      value: new Decimal(digits).toFixed(2),
      index: m.index,
      end,
      currency: CURRENCY_SIGNS[m[1]!] ?? m[1]!,
    });
  }
  return out.sort((a, b) => a.index - b.index);
}

/** A single amount that makes up (nearly) the whole of `text`, e.g. a cell "1.190,00 €". */
export function wholeAmount(text: string): FoundAmount | undefined {
  const found = findAmounts(text);
  if (found.length !== 1) return undefined;
  const rest = (text.slice(0, found[0]!.index) + text.slice(found[0]!.end)).replace(/[\s:*=]/g, '');
  return rest === '' ? found[0] : undefined;
}

/** A percentage such as "19 %", "19%", "5,5 %", "20.0%". */
export function findRate(text: string): string | undefined {
  const m = /(?<![\d.,])(\d{1,2}(?:[.,]\d{1,2})?)\s?%/u.exec(text);
  return m ? new Decimal(m[1]!.replace(',', '.')).toString() : undefined;
}

const WORDS: Record<Lang, RegExp> = {
  de: /\b(rechnung|datum|betrag|summe|netto|brutto|mwst|ust|gesamt|menge|bitte|zahlbar|und|der|die|das|gutschrift)\b/giu,
  en: /\b(invoice|date|amount|total|subtotal|vat|due|quantity|please|payment|the|and|credit)\b/giu,
  fr: /\b(facture|date|montant|total|ttc|ht|tva|quantité|échéance|veuillez|paiement|le|la|les|et|avoir)\b/giu,
};

/** The language with the most of its common invoice words in `text`. */
export function detectLang(text: string): Lang {
  let best: Lang = 'de';
  let bestCount = -1;
  for (const lang of ['de', 'en', 'fr'] as const) {
    const n = text.match(WORDS[lang])?.length ?? 0;
    if (n > bestCount) {
      best = lang;
      bestCount = n;
    }
  }
  return best;
}
