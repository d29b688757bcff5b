import { isValidBic, isValidIban, isValidVatId, VAT_COUNTRIES } from '../../../shared/identifiers.js';
import type { ValueKind } from './labels.js';
import { findAmounts, findDates, type Lang } from './values.js';

/** Blanks, dots and dashes removed, upper case: how identifiers are compared. */
export const compactId = (s: string): string => s.replace(/[\s\u00a0\u202f.-]/g, '').toUpperCase();

/** A VAT id of a country whose format is known (an unknown prefix proves nothing). */
export const isKnownVatId = (s: string): boolean =>
  VAT_COUNTRIES.includes(s.slice(0, 2) === 'GR' ? 'EL' : s.slice(0, 2)) && isValidVatId(s);

export interface ReadValue {
  value: string;
  /** Second value of a pair: the end of a period. */
  value2?: string;
  /** False when the value was a guess (day/month order) or failed a check. */
  sure: boolean;
  currency?: string;
}

const ID = /^[A-Za-z0-9][A-Za-z0-9\-/_.#]{0,39}$/;

/** An invoice number: one token with a digit that is neither a date nor an amount. */
export function readId(text: string, lang: Lang): ReadValue | undefined {
  // OCR reads a speck between label and value as "~", a quote or a bar ("Nr.: ~ 2026/286").
  const cell = text.trim().replace(/^[:#.\s~'"`´‘’‚„|]+/u, '');
  const token = cell.split(/\s+/)[0]?.replace(/[.,;:]+$/, '');
  if (!token || !ID.test(token) || !/\d/.test(token)) return undefined;
  // A date, also one written out ("19 February 2016": "19" is its day, not a number).
  const date = findDates(cell, lang)[0];
  if (date && date.index === 0 && date.end >= token.length) return undefined;
  if (/^\d{1,3}(?:[.,]\d{3})*[.,]\d{2}$/.test(token)) return undefined;
  return { value: token, sure: true };
}

/** The longest prefix of the compacted text (at most `max` characters) that passes `check`. */
function prefixPassing(
  text: string,
  min: number,
  max: number,
  check: (s: string) => boolean,
): string | undefined {
  const compact = compactId(text.replace(/^[:#\s]+/, ''));
  for (let n = Math.min(max, compact.length); n >= min; n--) {
    const s = compact.slice(0, n);
    if (check(s)) return s;
  }
  return undefined;
}

/** Whether `text` goes on with a letter or digit right after the characters of `prefix`. */
export function runsOn(text: string, prefix: string): boolean {
  let seen = 0;
  for (let i = 0; i < text.length; i++) {
    if (seen === prefix.length) return /[\p{L}\d]/u.test(text[i]!);
    if (compactId(text[i]!) !== '') seen++;
  }
  return false;
}

export function readValue(kind: ValueKind, text: string, lang: Lang): ReadValue | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  switch (kind) {
    case 'id':
      return readId(t, lang);
    case 'date': {
      const d = findDates(t, lang)[0];
      // The date must lead the value ("06.12.2026", "am 06.12.2026"), not sit in a sentence.
      return d && d.index <= 4 ? { value: d.value, sure: d.sure } : undefined;
    }
    case 'period': {
      const ds = findDates(t, lang);
      return ds.length >= 2 && ds[0]!.value <= ds[1]!.value
        ? { value: ds[0]!.value, value2: ds[1]!.value, sure: ds[0]!.sure && ds[1]!.sure }
        : undefined;
    }
    case 'amount': {
      const found = findAmounts(t);
      const last = found[found.length - 1];
      return last ? { value: last.value, sure: true, currency: last.currency } : undefined;
    }
    case 'vat': {
      const v = prefixPassing(t, 8, 15, isKnownVatId);
      // "ATU123456789" is no "ATU12345678" with a digit after it: a valid prefix of a longer
      // token is a misprint or another number, not the id.
      return v && !runsOn(t.replace(/^[:#\s]+/, ''), v) ? { value: v, sure: true } : undefined;
    }
    case 'iban': {
      const v = prefixPassing(t.split(/\s{2,}|[|·•,;]/)[0] ?? t, 15, 34, isValidIban);
      return v ? { value: v, sure: true } : undefined;
    }
    case 'bic': {
      const token = compactId(t.replace(/^[:#\s]+/, '').split(/\s+/)[0] ?? '');
      return isValidBic(token) ? { value: token, sure: true } : undefined;
    }
    case 'taxno': {
      const m = /^(\d{2,3}\s?\/\s?\d{3,4}\s?\/\s?\d{4,5}|\d{10,13})(?!\d)/.exec(t.replace(/^[:#\s]+/, ''));
      return m ? { value: m[1]!.replace(/\s/g, ''), sure: true } : undefined;
    }
    case 'text': {
      const v = t.replace(/^[:#\s]+/, '').slice(0, 140);
      return v ? { value: v, sure: true } : undefined;
    }
    default:
      return undefined;
  }
}
