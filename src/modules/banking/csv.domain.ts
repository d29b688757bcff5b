/**
 * Bank CSV exports read through a stored profile: separator, decimal separator, date format,
 * encoding, header rows and which column (1-based) holds which field. Quoted fields (RFC 4180,
 * also with the separator or line breaks inside) are read. Pure.
 */
import {
  amountToCents,
  clean,
  ibanOf,
  isIsoDate,
  type ParsedEntry,
  type ParsedStatement,
  StatementError,
  usableReference,
} from './statement.domain.js';

export const CSV_DATE_FORMATS = ['DD.MM.YYYY', 'DD.MM.YY', 'YYYY-MM-DD', 'DD/MM/YYYY', 'MM/DD/YYYY'] as const;
export type CsvDateFormat = (typeof CSV_DATE_FORMATS)[number];

export interface CsvColumns {
  booking_date: number;
  value_date?: number;
  /** A signed amount; or `credit` and `debit` in two columns (both as positive numbers). */
  amount?: number;
  credit?: number;
  debit?: number;
  currency?: number;
  counterparty_name?: number;
  counterparty_iban?: number;
  counterparty_bic?: number;
  /** Joined with a space when several. */
  remittance?: number[];
  bank_reference?: number;
  end_to_end_reference?: number;
  mandate_reference?: number;
  creditor_reference?: number;
}

export interface CsvProfile {
  delimiter: string;
  decimal_separator: ',' | '.';
  date_format: CsvDateFormat;
  encoding: 'utf-8' | 'iso-8859-1';
  header_rows: number;
  columns: CsvColumns;
}

/** What is wrong with a profile's columns (empty: nothing). */
export function columnProblems(c: CsvColumns): { field: string; message: string }[] {
  const out: { field: string; message: string }[] = [];
  const split = c.credit !== undefined || c.debit !== undefined;
  if (c.amount === undefined && !split)
    out.push({ field: 'columns.amount', message: 'give `amount`, or `credit` and `debit`' });
  if (c.amount !== undefined && split)
    out.push({ field: 'columns.amount', message: 'give `amount` or `credit` and `debit`, not both' });
  if (split && (c.credit === undefined || c.debit === undefined))
    out.push({
      field: c.credit === undefined ? 'columns.credit' : 'columns.debit',
      message: 'is required with the other',
    });
  return out;
}

/** Rows of fields; quotes as RFC 4180 has them. */
export function csvRows(text: string, delimiter: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += ch;
    } else if (ch === '"' && field === '') quoted = true;
    else if (ch === delimiter) {
      row.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += ch;
  }
  if (quoted) throw new StatementError('a quoted field is not closed');
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => r.some((f) => f.trim() !== ''));
}

function dateOf(s: string, format: CsvDateFormat): string | undefined {
  const t = s.trim();
  const m =
    format === 'YYYY-MM-DD'
      ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(t)
      : format === 'MM/DD/YYYY'
        ? /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(t)
        : new RegExp(
            `^(\\d{2})\\${format[2]}(\\d{2})\\${format[5]}(\\d{${format.length === 8 ? 2 : 4}})$`,
          ).exec(t);
  if (!m) return undefined;
  const [y, mo, d] =
    format === 'YYYY-MM-DD'
      ? [m[1]!, m[2]!, m[3]!]
      : format === 'MM/DD/YYYY'
        ? [m[3]!, m[1]!, m[2]!]
        : [m[3]!, m[2]!, m[1]!];
  const iso = `${y.length === 2 ? `20${y}` : y}-${mo}-${d}`;
  return isIsoDate(iso) ? iso : undefined;
}

/** "-1.234,56", "1 234.56", "(12.00)", "12,50 €" → signed cents. */
function amountOf(s: string, decimal: ',' | '.'): number | undefined {
  let t = s.replace(/[\s\u00a0€$£]|EUR|CHF|USD|GBP/g, '');
  let negative = false;
  if (/^\(.*\)$/.test(t)) {
    negative = true;
    t = t.slice(1, -1);
  }
  if (t.startsWith('-') || t.startsWith('+')) {
    negative = t.startsWith('-');
    t = t.slice(1);
  } else if (t.endsWith('-')) {
    negative = true;
    t = t.slice(0, -1);
  }
  const thousands = decimal === ',' ? /\.(?=\d{3}(\D|$))/g : /,(?=\d{3}(\D|$))/g;
  t = t.replace(thousands, '').replace(/'/g, '');
  if (t === '') return undefined;
  const cents = amountToCents(t, decimal);
  return cents === undefined ? undefined : negative ? -cents : cents;
}

/** A CSV export as one statement (no balances: CSV exports carry none that can be trusted). */
export function parseCsv(bytes: Buffer, profile: CsvProfile, currency: string): ParsedStatement {
  const text =
    profile.encoding === 'iso-8859-1'
      ? bytes.toString('latin1')
      : new TextDecoder('utf-8', { fatal: false }).decode(bytes).replace(/^\ufeff/, '');
  if (profile.encoding === 'utf-8' && text.includes('\ufffd'))
    throw new StatementError('the file is not UTF-8: set the profile’s encoding to iso-8859-1');
  const rows = csvRows(text, profile.delimiter).slice(profile.header_rows);
  if (rows.length === 0) throw new StatementError('the CSV file holds no rows');
  const c = profile.columns;
  const entries: ParsedEntry[] = rows.map((row, i) => {
    const line = i + 1 + profile.header_rows;
    const cell = (n: number | undefined) => (n === undefined ? undefined : row[n - 1]);
    const fail = (what: string): never => {
      throw new StatementError(`row ${line}: ${what}`);
    };
    const booking =
      dateOf(cell(c.booking_date) ?? '', profile.date_format) ??
      fail(`no ${profile.date_format} date in column ${c.booking_date}`);
    const value =
      c.value_date === undefined ? null : (dateOf(cell(c.value_date) ?? '', profile.date_format) ?? null);
    let amount: number;
    if (c.amount !== undefined) {
      amount =
        amountOf(cell(c.amount) ?? '', profile.decimal_separator) ?? fail(`no amount in column ${c.amount}`);
    } else {
      const credit = (cell(c.credit) ?? '').trim();
      const debit = (cell(c.debit) ?? '').trim();
      const inCents = credit ? amountOf(credit, profile.decimal_separator) : 0;
      const outCents = debit ? amountOf(debit, profile.decimal_separator) : 0;
      if (inCents === undefined || outCents === undefined) fail('an amount cannot be read');
      amount = Math.abs(inCents!) - Math.abs(outCents!);
    }
    const ccy = clean(cell(c.currency), 3);
    return {
      booking_date: booking,
      value_date: value,
      amount,
      currency: ccy && /^[A-Z]{3}$/.test(ccy) ? ccy : currency,
      counterparty_name: clean(cell(c.counterparty_name), 140),
      counterparty_iban: ibanOf(cell(c.counterparty_iban)),
      counterparty_bic: clean(cell(c.counterparty_bic), 11),
      remittance: clean((c.remittance ?? []).map((n) => cell(n) ?? '').join(' ')),
      creditor_reference: clean(cell(c.creditor_reference), 35),
      end_to_end_id: usableReference(clean(cell(c.end_to_end_reference), 35)),
      mandate_id: clean(cell(c.mandate_reference), 35),
      bank_reference: usableReference(clean(cell(c.bank_reference), 35)),
      booking_text: null,
    };
  });
  const dates = entries.map((e) => e.booking_date).sort();
  return {
    format: 'csv',
    statement_id: null,
    account_iban: null,
    account_raw: null,
    currency,
    period_start: dates[0] ?? null,
    period_end: dates.at(-1) ?? null,
    opening_balance: null,
    closing_balance: null,
    entries,
    skipped: 0,
  };
}
