/**
 * What every statement format reads into, and the rules shared by the readers: amounts in
 * exact cents, the identity of an entry (deduplication) and the balance check. Pure.
 */
import { createHash } from 'node:crypto';
import { isValidIban } from '../../shared/identifiers.js';

export type StatementFormat = 'camt.053' | 'camt.052' | 'camt.054' | 'mt940' | 'mt942' | 'csv';

export interface ParsedEntry {
  booking_date: string;
  value_date: string | null;
  /** Signed cents: money in is positive. */
  amount: number;
  currency: string;
  counterparty_name: string | null;
  counterparty_iban: string | null;
  counterparty_bic: string | null;
  remittance: string | null;
  creditor_reference: string | null;
  end_to_end_id: string | null;
  mandate_id: string | null;
  /** The bank's own reference of the entry (CAMT AcctSvcrRef, MT940 `//` reference). */
  bank_reference: string | null;
  booking_text: string | null;
  /**
   * A return or reversal (an R-transaction): the bank's reason code (ISO 20022 `RtrInf/Rsn/Cd`),
   * `RVSL` when the bank marked a reversal without a code; absent on every other entry.
   */
  return_reason?: string | null;
}

export interface ParsedStatement {
  format: StatementFormat;
  /** The statement's (or report's) id as the bank wrote it. */
  statement_id: string | null;
  account_iban: string | null;
  /** The account as written when it is no IBAN (BLZ/account number, …). */
  account_raw: string | null;
  currency: string | null;
  period_start: string | null;
  period_end: string | null;
  /** Signed cents. */
  opening_balance: number | null;
  closing_balance: number | null;
  entries: ParsedEntry[];
  /** Entries left out (not booked: pending, information only). */
  skipped: number;
}

/** A refusal of the file: the service turns it into a 422 naming `file`. */
export class StatementError extends Error {}

const MAX_CENTS = 1e15;

/** "1234,56" or "1234.56" (at most two decimals) → cents; undefined when not an amount. */
export function amountToCents(text: string, decimal: ',' | '.'): number | undefined {
  const t = text.trim();
  const re = decimal === ',' ? /^(\d{1,20})(?:,(\d*))?$/ : /^(\d{1,20})(?:\.(\d+))?$/;
  const m = re.exec(t);
  if (!m) return undefined;
  // Trailing zeros beyond the cents ("12,500") are still exact; other digits are not cents.
  const fraction = (m[2] ?? '').replace(/0+$/, '');
  if (fraction.length > 2) return undefined;
  const units = Number(m[1]!.replace(/^0+(?=\d)/, ''));
  const cents = units * 100 + Number(fraction.padEnd(2, '0'));
  return cents < MAX_CENTS ? cents : undefined;
}

export function isIsoDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

/** An IBAN in its electronic form when `s` holds a valid one, else null. */
export function ibanOf(s: string | null | undefined): string | null {
  if (!s) return null;
  const compact = s.replace(/\s+/g, '').toUpperCase();
  return /^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/.test(compact) && isValidIban(compact) ? compact : null;
}

/** Whitespace collapsed, trimmed, empty → null; cut to `max` characters. */
export function clean(s: string | null | undefined, max = 1000): string | null {
  if (s === null || s === undefined) return null;
  const t = String(s).replace(/\s+/g, ' ').trim();
  return t === '' ? null : t.slice(0, max);
}

/**
 * Joins the parts of a remittance text that banks cut into lines (CAMT `Ustrd` elements of
 * 35 characters, MT940 `?20`–`?29` of 27): with a space, except where a full line (at least
 * `width` characters) ends in a digit and the next begins with one: that joint is a cut
 * inside a number ("RE-2026-00" + "123"), and a space there would split it in two.
 */
export function joinRemittance(parts: readonly string[], width: number): string {
  let out = '';
  for (const [i, part] of parts.entries()) {
    const prev = parts[i - 1];
    const cut = prev !== undefined && prev.length >= width && /\d$/.test(prev) && /^\d/.test(part);
    out += i === 0 || cut ? part : ` ${part}`;
  }
  return out;
}

/** Opening + entries = closing, when the statement gives both balances. */
export function balancesAddUp(s: ParsedStatement): boolean {
  if (s.opening_balance === null || s.closing_balance === null) return true;
  const sum = s.entries.reduce((acc, e) => acc + e.amount, 0);
  return s.opening_balance + sum === s.closing_balance;
}

/** References that say "none": they identify nothing. */
const NO_REFERENCE = /^(NONREF|NOTPROVIDED|NOT PROVIDED|NONE|N\/A|0+)$/i;

export const usableReference = (ref: string | null): string | null =>
  ref && !NO_REFERENCE.test(ref.trim()) ? ref.trim() : null;

/**
 * The identity of each entry on one payment account, stable across files and formats: the
 * bank's reference when there is one; else a hash of booking date, amount, counterparty and
 * purpose with the occurrence of that hash in the file (#1, #2 …), so that two equal lines of
 * one day stay two, and a later file holding them again adds nothing.
 */
export function entryIdentities(paymentAccountId: number, entries: readonly ParsedEntry[]): string[] {
  const seen = new Map<string, number>();
  return entries.map((e) => {
    const ref = usableReference(e.bank_reference);
    const base = ref
      ? `ref:${ref}`
      : `h:${createHash('sha256')
          .update(
            [
              paymentAccountId,
              e.booking_date,
              e.amount,
              e.currency,
              e.counterparty_iban ?? '',
              (e.counterparty_name ?? '').toUpperCase(),
              (e.remittance ?? '').replace(/\s+/g, '').toUpperCase(),
            ].join('\u001f'),
          )
          .digest('hex')
          .slice(0, 40)}`;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return n === 1 && ref ? base : `${base}#${n}`;
  });
}
