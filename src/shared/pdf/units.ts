/** Units of measure: free text as typed by users, UN/ECE Recommendation 20 codes in the XML. */

/** Free-text units to UN/ECE Recommendation 20 codes; anything unknown is C62 ("one"). */
const UNIT_CODES: Record<string, string> = {
  h: 'HUR',
  hr: 'HUR',
  hrs: 'HUR',
  hour: 'HUR',
  hours: 'HUR',
  std: 'HUR',
  stunde: 'HUR',
  stunden: 'HUR',
  d: 'DAY',
  day: 'DAY',
  days: 'DAY',
  tag: 'DAY',
  tage: 'DAY',
  pt: 'DAY',
  piece: 'H87',
  pieces: 'H87',
  pcs: 'H87',
  pc: 'H87',
  stk: 'H87',
  stück: 'H87',
  min: 'MIN',
  minute: 'MIN',
  minutes: 'MIN',
  month: 'MON',
  months: 'MON',
  monat: 'MON',
  monate: 'MON',
  week: 'WEE',
  woche: 'WEE',
  km: 'KMT',
  kg: 'KGM',
};

/** Codes the mapper may emit or accept verbatim when the caller already sends a Rec 20 code. */
const KNOWN_CODES = new Set([
  'HUR',
  'DAY',
  'H87',
  'C62',
  'MIN',
  'MON',
  'WEE',
  'KMT',
  'KGM',
  'LS',
  'ANN',
  'MTR',
]);

export function unitCode(unit: string | null | undefined): string {
  if (!unit) return 'C62';
  const raw = unit.trim();
  if (KNOWN_CODES.has(raw)) return raw;
  return UNIT_CODES[raw.toLowerCase().replace(/\.$/, '')] ?? 'C62';
}

/** Rec 20 codes sent as unit are printed as words a reader understands. */
const UNIT_WORDS: Record<string, { en: string; de: string }> = {
  HUR: { en: 'h', de: 'Std.' },
  DAY: { en: 'days', de: 'Tage' },
  H87: { en: 'pcs', de: 'Stk.' },
  C62: { en: 'pcs', de: 'Stk.' },
  MON: { en: 'months', de: 'Monate' },
  MIN: { en: 'min', de: 'Min.' },
};

/** What the quantity column prints after the number. */
export function unitLabel(unit: string | null | undefined, lang: 'en' | 'de'): string {
  if (!unit) return '';
  return UNIT_WORDS[unit]?.[lang] ?? unit;
}
