/**
 * Format checks of business identifiers printed on invoices. Pure: used by the document
 * readers to choose between candidates and to decide how sure they are.
 */

/** IBAN lengths per country (ISO 13616 registry, SEPA countries and a few more). */
const IBAN_LENGTH: Record<string, number> = {
  AD: 24, AT: 20, BE: 16, BG: 22, CH: 21, CY: 28, CZ: 24, DE: 22, DK: 18, EE: 20, ES: 24,
  FI: 18, FR: 27, GB: 22, GI: 23, GR: 27, HR: 21, HU: 28, IE: 22, IS: 26, IT: 27, LI: 21,
  LT: 20, LU: 20, LV: 21, MC: 27, MT: 31, NL: 18, NO: 15, PL: 28, PT: 25, RO: 24, SE: 24,
  SI: 19, SK: 24, SM: 27, VA: 22,
}; // biome-ignore format: a table

/** Spaces removed, upper case. */
export const compactId = (s: string): string => s.replace(/[\s\u00a0\u202f.-]/g, '').toUpperCase();

/** ISO 13616 IBAN: known country length (or 15..34 elsewhere) and mod-97 checksum of 1. */
export function isValidIban(raw: string): boolean {
  const iban = compactId(raw);
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const length = IBAN_LENGTH[iban.slice(0, 2)];
  if (length !== undefined && iban.length !== length) return false;
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let rest = 0;
  for (const ch of rearranged) {
    const v = ch >= 'A' ? ch.charCodeAt(0) - 55 : ch.charCodeAt(0) - 48;
    rest = v >= 10 ? (rest * 100 + v) % 97 : (rest * 10 + v) % 97;
  }
  return rest === 1;
}

/** ISO 9362 BIC: 4 letters bank, 2 letters country, 2 location, optional 3 branch. */
export function isValidBic(raw: string): boolean {
  return /^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(compactId(raw));
}

/** VAT identification number shapes per country (EU VIES formats, GB, CH, NO). */
const VAT_FORMAT: Record<string, RegExp> = {
  AT: /^ATU\d{8}$/,
  BE: /^BE[01]\d{9}$/,
  BG: /^BG\d{9,10}$/,
  CH: /^CHE\d{9}(MWST|TVA|IVA)?$/,
  CY: /^CY\d{8}[A-Z]$/,
  CZ: /^CZ\d{8,10}$/,
  DE: /^DE\d{9}$/,
  DK: /^DK\d{8}$/,
  EE: /^EE\d{9}$/,
  EL: /^EL\d{9}$/,
  ES: /^ES[A-Z0-9]\d{7}[A-Z0-9]$/,
  FI: /^FI\d{8}$/,
  FR: /^FR[A-HJ-NP-Z0-9]{2}\d{9}$/,
  GB: /^GB(\d{9}|\d{12}|GD\d{3}|HA\d{3})$/,
  HR: /^HR\d{11}$/,
  HU: /^HU\d{8}$/,
  IE: /^IE\d{7}[A-W][A-I]?$|^IE\d[A-Z+*]\d{5}[A-W]$/,
  IT: /^IT\d{11}$/,
  LT: /^LT(\d{9}|\d{12})$/,
  LU: /^LU\d{8}$/,
  LV: /^LV\d{11}$/,
  MT: /^MT\d{8}$/,
  NL: /^NL\d{9}B\d{2}$/,
  NO: /^NO\d{9}(MVA)?$/,
  PL: /^PL\d{10}$/,
  PT: /^PT\d{9}$/,
  RO: /^RO\d{2,10}$/,
  SE: /^SE\d{12}$/,
  SI: /^SI\d{8}$/,
  SK: /^SK\d{10}$/,
  XI: /^XI(\d{9}|\d{12})$/,
};

/** A VAT id in its country's format ("DE123456789", "FRXX123456789", "ATU12345678"). */
export function isValidVatId(raw: string): boolean {
  const id = compactId(raw);
  const format = VAT_FORMAT[id.slice(0, 2)];
  return format?.test(id) === true;
}

/** The ISO 3166 country of a VAT id (EL is Greece's prefix for GR). */
export function vatIdCountry(raw: string): string | undefined {
  const prefix = compactId(raw).slice(0, 2);
  if (!VAT_FORMAT[prefix]) return undefined;
  return prefix === 'EL' ? 'GR' : prefix === 'XI' ? 'GB' : prefix;
}
