/**
 * Pure checks of the identifiers printed on invoices: IBAN (ISO 13616, mod-97 check digits
 * and the country's length), BIC (ISO 9362) and VAT identification numbers by country (the
 * EU member states' formats as VIES publishes them, plus CH, GB, NO). Used to validate
 * request fields and, by readers, to choose between candidates read from a document.
 */

/** IBAN lengths per country (SWIFT IBAN registry). */
const IBAN_LENGTHS: Record<string, number> = {
  AD: 24,
  AE: 23,
  AL: 28,
  AT: 20,
  AZ: 28,
  BA: 20,
  BE: 16,
  BG: 22,
  BH: 22,
  BR: 29,
  BY: 28,
  CH: 21,
  CR: 22,
  CY: 28,
  CZ: 24,
  DE: 22,
  DK: 18,
  DO: 28,
  EE: 20,
  EG: 29,
  ES: 24,
  FI: 18,
  FO: 18,
  FR: 27,
  GB: 22,
  GE: 22,
  GI: 23,
  GL: 18,
  GR: 27,
  GT: 28,
  HR: 21,
  HU: 28,
  IE: 22,
  IL: 23,
  IQ: 23,
  IS: 26,
  IT: 27,
  JO: 30,
  KW: 30,
  KZ: 20,
  LB: 28,
  LC: 32,
  LI: 21,
  LT: 20,
  LU: 20,
  LV: 21,
  MC: 27,
  MD: 24,
  ME: 22,
  MK: 19,
  MR: 27,
  MT: 31,
  MU: 30,
  NL: 18,
  NO: 15,
  PK: 24,
  PL: 28,
  PS: 29,
  PT: 25,
  QA: 29,
  RO: 24,
  RS: 22,
  SA: 24,
  SC: 31,
  SE: 24,
  SI: 19,
  SK: 24,
  SM: 27,
  ST: 25,
  SV: 28,
  TL: 23,
  TN: 24,
  TR: 26,
  UA: 29,
  VA: 22,
  VG: 24,
  XK: 20,
};

/** Upper case without blanks: how IBANs, BICs and VAT ids are stored. */
export const normalizeIdentifier = (s: string) => s.replace(/[\s\u00a0\u202f]+/g, '').toUpperCase();

/** Blanks, dots and dashes removed, upper case: how identifiers are compared. */
export const compactId = (s: string): string => s.replace(/[\s\u00a0\u202f.-]/g, '').toUpperCase();

/** A valid IBAN (blanks and case ignored): known country, its length, check digits mod 97 = 1. */
export function isValidIban(input: string): boolean {
  const iban = normalizeIdentifier(input);
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/.test(iban)) return false;
  if (IBAN_LENGTHS[iban.slice(0, 2)] !== iban.length) return false;
  const digits = (iban.slice(4) + iban.slice(0, 4)).replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let rest = 0;
  for (const d of digits) rest = (rest * 10 + Number(d)) % 97;
  return rest === 1;
}

/** A BIC of 8 or 11 characters: bank, country (letters), location, optional branch. */
export const isValidBic = (input: string) =>
  /^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(normalizeIdentifier(input));

/**
 * A SEPA creditor identifier (EPC262-08): country, two check digits, a three-character
 * business code that the check leaves out, and the national identifier; the check digits are
 * ISO 7064 mod 97-10 over the national identifier followed by the country and "00".
 * DE98ZZZ09999999999 is valid.
 */
export function isValidSepaCreditorId(input: string): boolean {
  const id = normalizeIdentifier(input);
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{3}[A-Z0-9]{1,28}$/.test(id)) return false;
  const digits = (id.slice(7) + id.slice(0, 2) + '00').replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let rest = 0;
  for (const d of digits) rest = (rest * 10 + Number(d)) % 97;
  return String(98 - rest).padStart(2, '0') === id.slice(2, 4);
}

/** VAT id formats after the country prefix (VIES; EL for Greece, XI for Northern Ireland). */
const VAT_FORMATS: Record<string, RegExp> = {
  AT: /^U\d{8}$/,
  BE: /^[01]\d{9}$/,
  BG: /^\d{9,10}$/,
  CY: /^\d{8}[A-Z]$/,
  CZ: /^\d{8,10}$/,
  DE: /^\d{9}$/,
  DK: /^\d{8}$/,
  EE: /^\d{9}$/,
  EL: /^\d{9}$/,
  ES: /^[A-Z0-9]\d{7}[A-Z0-9]$/,
  FI: /^\d{8}$/,
  FR: /^[A-HJ-NP-Z0-9]{2}\d{9}$/,
  HR: /^\d{11}$/,
  HU: /^\d{8}$/,
  IE: /^(\d{7}[A-W][A-IW]?|\d[A-Z+*]\d{5}[A-W])$/,
  IT: /^\d{11}$/,
  LT: /^(\d{9}|\d{12})$/,
  LU: /^\d{8}$/,
  LV: /^\d{11}$/,
  MT: /^\d{8}$/,
  NL: /^\d{9}B\d{2}$/,
  PL: /^\d{10}$/,
  PT: /^\d{9}$/,
  RO: /^[1-9]\d{1,9}$/,
  SE: /^\d{12}$/,
  SI: /^\d{8}$/,
  SK: /^\d{10}$/,
  XI: /^(\d{9}|\d{12}|GD\d{3}|HA\d{3})$/,
  GB: /^(\d{9}|\d{12}|GD\d{3}|HA\d{3})$/,
  CH: /^E\d{9}(MWST|TVA|IVA)?$/,
  NO: /^\d{9}(MVA)?$/,
};

/** VAT id prefixes whose format is known (EL: Greece, XI: Northern Ireland). */
export const VAT_COUNTRIES = Object.keys(VAT_FORMATS);

/**
 * Whether a VAT identification number has its country's format (blanks, dots and dashes
 * ignored, `GR` accepted for Greece's `EL`). A prefix outside the table is not a VAT id.
 */
export function isValidVatId(input: string): boolean {
  const id = compactId(input);
  const country = id.startsWith('GR') ? 'EL' : id.slice(0, 2);
  return VAT_FORMATS[country]?.test(id.slice(2)) === true;
}

/** The ISO 3166 country of a VAT id (EL is Greece's prefix for GR, XI Northern Ireland's). */
export function vatIdCountry(raw: string): string | undefined {
  const prefix = compactId(raw).slice(0, 2);
  if (!VAT_FORMATS[prefix]) return undefined;
  return prefix === 'EL' ? 'GR' : prefix === 'XI' ? 'GB' : prefix;
}
