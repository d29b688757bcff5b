import type { Decimal } from 'decimal.js';
import type { Lang } from './invoice-data.js';
import type { Rng } from './random.js';

const MONTHS: Record<Lang, string[]> = {
  de: [
    'Januar',
    'Februar',
    'März',
    'April',
    'Mai',
    'Juni',
    'Juli',
    'August',
    'September',
    'Oktober',
    'November',
    'Dezember',
  ],
  en: [
    'January',
    'February',
    'March',
    'April',
    'May',
    'June',
    'July',
    'August',
    'September',
    'October',
    'November',
    'December',
  ],
  fr: [
    'janvier',
    'février',
    'mars',
    'avril',
    'mai',
    'juin',
    'juillet',
    'août',
    'septembre',
    'octobre',
    'novembre',
    'décembre',
  ],
};

export type DateStyle = (iso: string) => string;

/** A date style for the whole document, as people of that language write dates. */
export function dateStyle(rng: Rng, lang: Lang): DateStyle {
  const parts = (iso: string) => iso.split('-').map(Number) as [number, number, number];
  const p2 = (n: number) => String(n).padStart(2, '0');
  const styles: Record<Lang, DateStyle[]> = {
    de: [
      (s) => { const [y, m, d] = parts(s); return `${p2(d)}.${p2(m)}.${y}`; },
      (s) => { const [y, m, d] = parts(s); return `${d}.${m}.${String(y).slice(2)}`; },
      (s) => { const [y, m, d] = parts(s); return `${d}. ${MONTHS.de[m - 1]} ${y}`; },
      (s) => s,
    ],
    en: [
      (s) => { const [y, m, d] = parts(s); return `${d} ${MONTHS.en[m - 1]} ${y}`; },
      (s) => { const [y, m, d] = parts(s); return `${MONTHS.en[m - 1]} ${d}, ${y}`; },
      (s) => { const [y, m, d] = parts(s); return `${p2(d)} ${MONTHS.en[m - 1]!.slice(0, 3)} ${y}`; },
      (s) => s,
    ],
    fr: [
      (s) => { const [y, m, d] = parts(s); return `${p2(d)}/${p2(m)}/${y}`; },
      (s) => { const [y, m, d] = parts(s); return `${d} ${MONTHS.fr[m - 1]} ${y}`; },
      (s) => s,
    ],
  }; // biome-ignore format: a table of one-liners
  return rng.pick(styles[lang]);
}

export type MoneyStyle = (v: Decimal, withCurrency?: boolean) => string;

/** Number format of the language, with the currency written the local way. */
export function moneyStyle(rng: Rng, lang: Lang, currency: string): MoneyStyle {
  const symbolAfter = lang !== 'en' && rng.chance(0.7);
  const code = rng.chance(0.3);
  return (v, withCurrency = true) => {
    const neg = v.isNegative();
    const [int, frac] = v.abs().toFixed(2).split('.') as [string, string];
    const sep = lang === 'de' ? '.' : lang === 'en' ? ',' : ' ';
    const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, sep);
    const num = `${neg ? '-' : ''}${grouped}${lang === 'en' ? '.' : ','}${frac}`;
    if (!withCurrency) return num;
    const sign = code ? currency : currency === 'GBP' ? '£' : '€';
    if (code) return symbolAfter ? `${num} ${sign}` : `${sign} ${num}`;
    return symbolAfter || sign === '€' ? `${num} ${sign}` : `${sign}${num}`;
  };
}

/** "19", "5.5" -> "19 %", "5,5 %" */
export const rateText = (lang: Lang, rate: string): string =>
  `${lang === 'en' ? rate : rate.replace('.', ',')}${lang === 'en' ? '%' : ' %'}`;
