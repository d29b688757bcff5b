import { Decimal } from 'decimal.js';
import type { Selectable } from 'kysely';
import { fromCents } from '../../shared/money.js';
import { rateOut } from '../chart-of-accounts/chart-of-accounts.public.js';
import type { ExtractedLine, Provenance, TaxBreakdown } from './extraction.model.js';
import type { Booking, IncomingInvoice } from './incoming-invoices.schemas.js';
import type { IncomingInvoiceBookingTable, IncomingInvoiceTable } from './incoming-invoices.tables.js';

export type InvoiceRow = Selectable<IncomingInvoiceTable>;
export type BookingRow = Selectable<IncomingInvoiceBookingTable>;

export const rateIn = (rate: number | null | undefined): string | null | undefined =>
  rate === undefined ? undefined : rate === null ? null : new Decimal(String(rate)).toFixed();

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

const parse = <T>(json: string | null, fallback: T): T =>
  json === null ? fallback : (JSON.parse(json) as T);
const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));
const cents = (v: number | string | null) => (v === null ? null : fromCents(v));

/** Stored decimal strings as wire numbers; keys without a value left out. */
function taxesOut(json: string | null): IncomingInvoice['taxes'] {
  const taxes = parse<TaxBreakdown[] | null>(json, null);
  return (
    taxes?.map((t) => ({
      rate: Number(t.rate),
      net: Number(t.net),
      tax: Number(t.tax),
      ...(t.category !== undefined ? { category: t.category } : {}),
      ...(t.exemption_reason !== undefined ? { exemption_reason: t.exemption_reason } : {}),
    })) ?? null
  );
}

function linesOut(json: string | null): IncomingInvoice['line_items'] {
  const lines = parse<ExtractedLine[] | null>(json, null);
  return (
    lines?.map((l) =>
      Object.fromEntries(
        Object.entries({
          title: l.title,
          description: l.description,
          quantity: num(l.quantity),
          unit: l.unit,
          unit_price: num(l.unit_price),
          net_total: num(l.net_total),
          tax_rate: num(l.tax_rate),
        }).filter(([, v]) => v !== undefined),
      ),
    ) ?? null
  );
}

/** Provenance of every field: extracted ones as stored, the caller's own as `request`. */
function fieldsOut(r: InvoiceRow): Record<string, Provenance> {
  const fields: Record<string, Provenance> = parse(r.extraction_provenance, {});
  for (const name of parse<string[]>(r.request_fields, []))
    fields[name] = { source: 'request', confidence: 1 };
  return Object.fromEntries(Object.entries(fields).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * While a document is being read its totals and currency are not known: the answer says
 * null rather than the stored column defaults (0, EUR), unless the caller gave them.
 */
function pendingUnknown(r: InvoiceRow) {
  if (r.extraction_status !== 'pending') return { totals: false, currency: false };
  const given = new Set(parse<string[]>(r.request_fields, []));
  return {
    totals: !['net_total', 'tax_total', 'gross_total'].some((k) => given.has(k)),
    currency: !given.has('currency'),
  };
}

export function toIncomingInvoice(r: InvoiceRow, bookings: BookingRow[]): IncomingInvoice {
  const gross = Number(r.gross_total);
  const paid = Number(r.paid_total);
  const unknown = pendingUnknown(r);
  return {
    id: r.id,
    document_type: r.document_type as IncomingInvoice['document_type'],
    supplier_id: r.supplier_id,
    supplier_name: r.supplier_name,
    supplier_vat_id: r.supplier_vat_id,
    invoice_number: r.invoice_number,
    date: r.date,
    due_date: r.due_date,
    currency: unknown.currency ? null : r.currency,
    net_total: unknown.totals ? null : fromCents(r.net_total),
    tax_total: unknown.totals ? null : fromCents(r.tax_total),
    gross_total: unknown.totals ? null : fromCents(gross),
    paid_total: fromCents(paid),
    open_total: unknown.totals ? null : fromCents(Math.max(0, gross - paid)),
    // As on outgoing invoices: nothing paid is unpaid, nothing left open (after a payment) is paid.
    payment_status: paid === 0 ? 'unpaid' : paid >= gross ? 'paid' : 'partially_paid',
    payment_in_transit: r.payment_in_transit_run_id ?? null,
    status: r.status as IncomingInvoice['status'],
    description: r.description,
    file_id: r.file_id,
    file_md5: r.file_md5,
    file_was_preprocessed: Boolean(r.file_was_preprocessed),
    extracted_fields: JSON.parse(r.extracted_fields) as string[],
    delivery_date: r.delivery_date,
    service_period_start: r.service_period_start,
    service_period_end: r.service_period_end,
    prepaid_total: cents(r.prepaid_total),
    amount_due: cents(r.amount_due),
    buyer_reference: r.buyer_reference,
    supplier_street: r.supplier_street,
    supplier_postcode: r.supplier_postcode,
    supplier_city: r.supplier_city,
    supplier_country: r.supplier_country,
    supplier_tax_number: r.supplier_tax_number,
    iban: r.iban,
    bic: r.bic,
    payment_reference: r.payment_reference,
    taxes: taxesOut(r.taxes),
    line_items: linesOut(r.line_items),
    extraction: {
      status: r.extraction_status as IncomingInvoice['extraction']['status'],
      method: r.extraction_method,
      warnings: parse(r.extraction_warnings, []),
      fields: fieldsOut(r),
    },
    bookings: bookings.map(toBooking),
    source:
      r.source_message_id === null
        ? { kind: 'api' }
        : {
            kind: 'mailbox',
            mailbox_id: r.source_mailbox_id,
            message_id: r.source_message_id,
            sender: r.source_sender,
            subject: r.source_subject,
          },
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}
