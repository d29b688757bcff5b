import { AppError, validationFailed } from '../../shared/errors.js';
import { allocate, subtractTotals, sumTotals, type Totals } from '../../shared/money.js';
import {
  DEFAULT_NUMBER_FORMATS,
  NUMBER_FORMAT_TOKENS,
  type NumberKind,
  numberFormatError,
} from '../../shared/number-formats.js';
import { lumpSumLine, type ParsedLine } from './line-items.js';

/**
 * Pure rules of outgoing invoices: kinds, states, numbering, plan schedules and deductions,
 * payment state. No database here; the services feed these with rows.
 */

export const DOCUMENT_TYPES = ['invoice', 'credit', 'deposit', 'partial', 'final'] as const;
export const RECURRING_TYPES = ['recurring1', 'recurring3', 'recurring6', 'recurring12'] as const;
export const MASTER_TYPES = [...RECURRING_TYPES, 'partial_plan'] as const;
export const INVOICE_TYPES = [...DOCUMENT_TYPES, ...MASTER_TYPES] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];
export type RecurringType = (typeof RECURRING_TYPES)[number];
export type MasterType = (typeof MASTER_TYPES)[number];
export type InvoiceType = (typeof INVOICE_TYPES)[number];

export const STATUSES = ['open', 'bookable', 'booked'] as const;
export type InvoiceStatus = (typeof STATUSES)[number];

export const isMaster = (type: string): type is MasterType =>
  (MASTER_TYPES as readonly string[]).includes(type);
export const isRecurring = (type: string): type is RecurringType =>
  (RECURRING_TYPES as readonly string[]).includes(type);

/** Months between two children of a recurring plan. */
export const intervalMonths = (type: RecurringType): number => Number(type.slice('recurring'.length));

export { DEFAULT_NUMBER_FORMATS, type NumberKind, numberFormatError };
export const numberKind = (type: string): NumberKind => (type === 'credit' ? 'credit' : 'invoice');

// ---------------------------------------------------------------------------------------------
// Dates

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

function parts(date: string): [number, number, number] {
  const m = DATE_RE.exec(date);
  if (!m) throw new Error(`not a date: ${date}`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const LAST_DATE = '9999-12-31';
/**
 * Dates stay in the years 0001–9999 that inputs are limited to and both databases store:
 * arithmetic past either end (a due date 10 years after 9999-01-01, the end of a plan's last
 * period) stops at the first or last representable day.
 */
const fmt = (y: number, m: number, d: number) =>
  y > 9999 ? LAST_DATE : y < 1 ? '0001-01-01' : `${pad(y, 4)}-${pad(m)}-${pad(d)}`;

export const daysInMonth = (year: number, month: number): number =>
  new Date(Date.UTC(year, month, 0)).getUTCDate();

/** Calendar months later, clamped to the month's end: 31 Jan + 1 month = 28/29 Feb. */
export function addMonths(date: string, months: number): string {
  const [y, m, d] = parts(date);
  const index = y * 12 + (m - 1) + months;
  const ty = Math.floor(index / 12);
  const tm = (index % 12) + 1;
  return fmt(ty, tm, Math.min(d, daysInMonth(ty, tm)));
}

/** Whether the month `months` after the one of `date` is past December 9999. */
const pastLastMonth = (date: string, months: number): boolean => {
  const [y, m] = parts(date);
  return y * 12 + (m - 1) + months > 9999 * 12 + 11;
};

export function addDays(date: string, days: number): string {
  const [y, m, d] = parts(date);
  // setUTCFullYear, not Date.UTC: that one reads the years 0–99 as 1900–1999.
  const t = new Date(0);
  t.setUTCFullYear(y, m - 1, d + days);
  return fmt(t.getUTCFullYear(), t.getUTCMonth() + 1, t.getUTCDate());
}

export interface Period {
  /** 0-based index of the interval in the plan. */
  index: number;
  start: string;
  end: string;
}

export const MAX_PLAN_PERIODS = 600;

/**
 * The intervals of a recurring plan: every period starts `months` after the plan start times
 * its index (always counted from the plan start, so 31 Jan, 28 Feb, 31 Mar … never drifts to
 * the 28th) and ends the day before the next one starts. Periods starting after `end` are
 * not part of the plan.
 */
export function planSchedule(start: string, end: string, months: number): Period[] {
  const out: Period[] = [];
  for (let i = 0; ; i++) {
    if (pastLastMonth(start, i * months)) break;
    const s = addMonths(start, i * months);
    if (s > end) break;
    if (out.length >= MAX_PLAN_PERIODS) {
      throw validationFailed(
        [{ field: 'plan_end', message: `gives more than ${MAX_PLAN_PERIODS} intervals` }],
        `A plan may have at most ${MAX_PLAN_PERIODS} intervals`,
      );
    }
    const next = (i + 1) * months;
    out.push({
      index: i,
      start: s,
      end: pastLastMonth(start, next) ? LAST_DATE : addDays(addMonths(start, next), -1),
    });
  }
  return out;
}

/** The due date a document shows: explicit, or invoice date plus payment term. */
export function effectiveDueDate(d: {
  date: string | null;
  due_date: string | null;
  payment_term_days: number | null;
}): string | null {
  if (d.due_date) return d.due_date;
  if (d.date && d.payment_term_days !== null) return addDays(d.date, d.payment_term_days);
  return null;
}

// ---------------------------------------------------------------------------------------------
// Numbering

/** Formats with a year restart their counter every year; others count on for ever (year 0). */
export const counterYear = (format: string, date: string): number =>
  /\{YYYY\}|\{YY\}/.test(format) ? parts(date)[0] : 0;

/** `RE-{YYYY}-{NNNNN}` with 2026 and 42 -> `RE-2026-00042`; the counter widens beyond its digits. */
export function formatInvoiceNumber(format: string, year: number, seq: number): string {
  return format.replace(NUMBER_FORMAT_TOKENS, (_m, token: string) => {
    if (token === 'YYYY') return pad(year, 4);
    if (token === 'YY') return pad(year % 100);
    return pad(seq, token.length);
  });
}

// ---------------------------------------------------------------------------------------------
// States

export interface StateView {
  type: string;
  status: string;
}

/** PATCH: anything not booked may change. */
export function editRefusal(doc: StateView): AppError | null {
  if (doc.status === 'booked') return new AppError('invoice_booked', 'A booked invoice cannot be changed');
  return null;
}

/** DELETE refuses booked invoices; DELETE …/force deletes anything. */
export function deleteRefusal(doc: StateView, force: boolean): AppError | null {
  if (!force && doc.status === 'booked') {
    return new AppError('invoice_booked', 'A booked invoice cannot be deleted (use DELETE …/force)');
  }
  return null;
}

export interface BookingView extends StateView {
  client_id: number | null;
  line_count: number;
  gross: number;
  /** Final invoices: deposits, partials and credits of the plan that are not booked yet. */
  unbooked_plan_invoices?: number;
}

/** Why a document cannot be booked now, or null. */
export function bookingRefusal(doc: BookingView): AppError | null {
  if (doc.status === 'booked') return new AppError('already_booked', 'The invoice is already booked');
  if (isMaster(doc.type)) {
    return new AppError('unprocessable', 'Plan masters are not booked; their invoices are');
  }
  const errors = [];
  if (doc.client_id === null) errors.push({ field: 'client_id', message: 'a client is required to book' });
  if (doc.line_count === 0)
    errors.push({ field: 'line_items', message: 'at least one line item is required' });
  else if (doc.type === 'credit' && doc.gross >= 0)
    errors.push({ field: 'line_items', message: 'a credit must total less than zero' });
  else if (doc.type !== 'credit' && doc.gross < 0)
    errors.push({ field: 'line_items', message: 'an invoice cannot total less than zero; book a credit' });
  if (errors.length > 0) return validationFailed(errors);
  if (doc.type === 'final' && (doc.unbooked_plan_invoices ?? 0) > 0) {
    return new AppError(
      'conflict',
      'The plan still has deposit, partial or credit invoices that are not booked: book or delete them first',
    );
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Partial plans

export interface Deductible {
  type: string;
  status: string;
  totals: Totals;
}

/** What a final invoice deducts: the plan's booked deposits, partials and credits. */
export const deducted = <T extends Deductible>(siblings: readonly T[]): T[] =>
  siblings.filter((s) => s.status === 'booked' && ['deposit', 'partial', 'credit'].includes(s.type));

/** Final invoice: the plan total minus every deduction, rate by rate. */
export const finalTotals = (plan: Totals, deductions: readonly Deductible[]): Totals =>
  subtractTotals(plan, sumTotals(deductions.map((d) => d.totals)));

/** True when deposits, partials and credits of the plan (not deleted) exceed its total. */
export function exceedsPlan(plan: Totals, invoiced: readonly Totals[]): boolean {
  const sum = sumTotals(invoiced);
  return sum.net > plan.net || sum.gross > plan.gross;
}

/**
 * Lines of a lump-sum plan invoice: `cents` net, split over the plan's tax rates in proportion
 * to their net amounts so that deductions on the final invoice match rate by rate.
 */
export function lumpSumLines(title: string, cents: number, plan: Totals): ParsedLine[] {
  const rates = plan.taxes.filter((t) => t.net !== 0);
  if (rates.length === 0) return [lumpSumLine(title, cents, '0')];
  if (rates.length === 1) return [lumpSumLine(title, cents, rates[0]!.rate)];
  const shares = allocate(
    cents,
    rates.map((t) => t.net),
  );
  return rates.map((t, i) => lumpSumLine(`${title} (${t.rate} % share)`, shares[i]!, t.rate));
}

// ---------------------------------------------------------------------------------------------
// Payments

export type PaymentStatus = 'unpaid' | 'partially_paid' | 'paid';

export interface PaymentState {
  paid: number;
  open: number;
  status: PaymentStatus;
}

/**
 * `paid` is what payments and credits settled (for a credit: the negative amount that was
 * used against invoices). Nothing settled is unpaid, a settled remainder of zero is paid.
 */
export function paymentState(gross: number, paid: number, booked: boolean): PaymentState {
  const open = gross - paid;
  if (open === 0 && (paid !== 0 || booked)) return { paid, open, status: 'paid' };
  if (paid === 0) return { paid, open, status: 'unpaid' };
  return { paid, open, status: 'partially_paid' };
}
