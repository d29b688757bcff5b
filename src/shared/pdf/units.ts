/**
 * Units of measure: one table holds, per UN/ECE Recommendation 20 code, what a German and an
 * English document print (singular, plural) and the free texts users type for it. The XML
 * carries the code; the page carries the word in the document's language.
 */

interface Unit {
  code: string;
  de: [string, string];
  en: [string, string];
  /** Lower-case free texts (a trailing dot is ignored) that mean this unit. */
  aliases: string[];
}

export const UNITS: readonly Unit[] = [
  {
    code: 'C62',
    de: ['Stk.', 'Stk.'],
    en: ['pc', 'pcs'],
    aliases: ['pc', 'pcs', 'piece', 'pieces', 'stk', 'stück', 'x', 'unit', 'units'],
  },
  { code: 'H87', de: ['Stk.', 'Stk.'], en: ['pc', 'pcs'], aliases: [] },
  {
    code: 'HUR',
    de: ['Std.', 'Std.'],
    en: ['hr', 'hrs'],
    aliases: ['h', 'hr', 'hrs', 'hour', 'hours', 'std', 'stunde', 'stunden'],
  },
  { code: 'MIN', de: ['Min.', 'Min.'], en: ['min', 'min'], aliases: ['min', 'minute', 'minutes', 'minuten'] },
  {
    code: 'DAY',
    de: ['Tag', 'Tage'],
    en: ['day', 'days'],
    aliases: ['d', 'day', 'days', 'tag', 'tage', 'pt', 'personentag', 'personentage'],
  },
  {
    code: 'WEE',
    de: ['Woche', 'Wochen'],
    en: ['week', 'weeks'],
    aliases: ['week', 'weeks', 'woche', 'wochen'],
  },
  {
    code: 'MON',
    de: ['Monat', 'Monate'],
    en: ['month', 'months'],
    aliases: ['month', 'months', 'monat', 'monate', 'mo'],
  },
  {
    code: 'ANN',
    de: ['Jahr', 'Jahre'],
    en: ['year', 'years'],
    aliases: ['year', 'years', 'jahr', 'jahre', 'yr'],
  },
  {
    code: 'LS',
    de: ['Pauschal', 'Pauschal'],
    en: ['lump sum', 'lump sum'],
    aliases: ['pauschal', 'pauschale', 'psch', 'lump sum', 'flat', 'flat rate'],
  },
  {
    code: 'KMT',
    de: ['km', 'km'],
    en: ['km', 'km'],
    aliases: ['km', 'kilometer', 'kilometre', 'kilometers', 'kilometres'],
  },
  { code: 'MTR', de: ['m', 'm'], en: ['m', 'm'], aliases: ['m', 'meter', 'metre', 'meters', 'metres'] },
  { code: 'KGM', de: ['kg', 'kg'], en: ['kg', 'kg'], aliases: ['kg', 'kilogramm', 'kilogram', 'kilograms'] },
  { code: 'LTR', de: ['l', 'l'], en: ['l', 'l'], aliases: ['l', 'liter', 'litre', 'liters', 'litres'] },
];

const BY_CODE = new Map(UNITS.map((u) => [u.code, u]));
const BY_ALIAS = new Map(UNITS.flatMap((u) => u.aliases.map((a) => [a, u] as const)));

function lookup(unit: string | null | undefined): Unit | undefined {
  if (!unit) return undefined;
  const raw = unit.trim();
  return BY_CODE.get(raw) ?? BY_ALIAS.get(raw.toLowerCase().replace(/\.$/, ''));
}

/** The Rec 20 code of a unit; anything unknown (or none) is C62, "one". */
export function unitCode(unit: string | null | undefined): string {
  return lookup(unit)?.code ?? 'C62';
}

/**
 * What the quantity column prints after the number: the table's word in the document's
 * language (plural unless the quantity is exactly 1), or an unknown unit as the user typed it.
 */
export function unitLabel(unit: string | null | undefined, lang: 'en' | 'de', quantity = '2'): string {
  if (!unit) return '';
  const known = lookup(unit);
  if (!known) return unit.trim();
  const one = /^[+-]?0*1(\.0*)?$/.test(quantity.trim());
  return known[lang][one ? 0 : 1];
}
