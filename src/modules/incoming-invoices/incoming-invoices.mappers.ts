import { Decimal } from 'decimal.js';
import type { Selectable } from 'kysely';
import type { Booking, IncomingInvoice } from './incoming-invoices.schemas.js';
import type { IncomingInvoiceBookingTable, IncomingInvoiceTable } from './incoming-invoices.tables.js';

export type InvoiceRow = Selectable<IncomingInvoiceTable>;
export type BookingRow = Selectable<IncomingInvoiceBookingTable>;

/** A wire amount (at most two decimals, checked by the schema) as integer cents, exactly. */
export const toCents = (amount: number | string): number =>
  new Decimal(String(amount)).times(100).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber();
export const fromCents = (cents: number | string | bigint): number =>
  new Decimal(String(cents)).div(100).toNumber();
export const rateIn = (rate: number | null | undefined): string | null | undefined =>
  rate === undefined ? undefined : rate === null ? null : new Decimal(String(rate)).toFixed();
export const rateOut = (rate: string | null): number | null => (rate === null ? null : Number(rate));

export function toBooking(r: BookingRow): Booking {
  return {
    id: r.id,
    chart_of_account_id: r.chart_of_account_id,
    cost_center: r.cost_center,
    amount: fromCents(r.amount),
    tax_rate: rateOut(r.tax_rate),
    description: r.description,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

export function toIncomingInvoice(r: InvoiceRow, bookings: BookingRow[]): IncomingInvoice {
  const gross = Number(r.gross_total);
  const paid = Number(r.paid_total);
  return {
    id: r.id,
    document_type: r.document_type as IncomingInvoice['document_type'],
    supplier_id: r.supplier_id,
    supplier_name: r.supplier_name,
    supplier_vat_id: r.supplier_vat_id,
    invoice_number: r.invoice_number,
    date: r.date,
    due_date: r.due_date,
    currency: r.currency,
    net_total: fromCents(r.net_total),
    tax_total: fromCents(r.tax_total),
    gross_total: fromCents(gross),
    paid_total: fromCents(paid),
    open_total: fromCents(Math.max(0, gross - paid)),
    // As on outgoing invoices: nothing paid is unpaid, nothing left open (after a payment) is paid.
    payment_status: paid === 0 ? 'unpaid' : paid >= gross ? 'paid' : 'partially_paid',
    status: r.status as IncomingInvoice['status'],
    description: r.description,
    file_id: r.file_id,
    file_md5: r.file_md5,
    file_was_preprocessed: Boolean(r.file_was_preprocessed),
    extracted_fields: JSON.parse(r.extracted_fields) as string[],
    bookings: bookings.map(toBooking),
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}
