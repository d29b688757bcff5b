import type { Generated } from 'kysely';

export interface OutgoingInvoiceTable {
  id: Generated<number>;
  account_id: number;
  /** invoice, credit, deposit, partial, final; masters: recurring1|3|6|12, partial_plan. */
  type: string;
  /** open, bookable, booked. */
  status: Generated<string>;
  invoice_number: string | null;
  /** 1: uploaded with POST /outgoing-invoices/external. */
  external: Generated<number>;
  client_id: number | null;
  contact_id: number | null;
  project_id: number | null;
  master_id: number | null;
  credited_invoice_id: number | null;
  title: string | null;
  date: string | null;
  due_date: string | null;
  payment_term_days: number | null;
  service_period_start: string | null;
  service_period_end: string | null;
  plan_start: string | null;
  plan_end: string | null;
  currency: string;
  intro_text: string | null;
  closing_text: string | null;
  /** The uploaded PDF of an external invoice. */
  file_id: number | null;
  /** Booked invoices: JSON of the PdfDocument as it was at booking (sender, recipient, lines …). */
  document: string | null;
  /** Booked invoices: JSON of the seller (account) and buyer (client) as they were at booking. */
  seller: string | null;
  buyer: string | null;
  /** BT-10 (Leitweg-ID); null: the client's. */
  buyer_reference: string | null;
  /** Supply date set at booking when the account lets it default to the invoice date. */
  service_date: string | null;
  /** UNTDID 5305 category of the 0 % lines (AE, K, G, E, Z, O) and why no VAT is charged. */
  tax_exemption_category: string | null;
  tax_exemption_reason_code: string | null;
  tax_exemption_reason: string | null;
  /** The PDF rendered on the first download after booking, served unchanged from then on. */
  pdf_file_id: number | null;
  booked_at: string | null;
  /** Recurring masters (migration 2026_12_07_980): the scheduler makes and sends its invoices. */
  auto_generate: Generated<number>;
  auto_send: Generated<number>;
  /** The day auto_generate was last turned on: periods that had ended by then are not made. */
  auto_from: Generated<string | null>;
  deleted_at: string | null;
  /** The user who deleted it (migration 951); null while live and for older deletions. */
  deleted_by: Generated<number | null>;
  /**
   * Totals of the document's own lines (cents; `lines_taxes`: JSON of the per-rate entries),
   * written with the lines (migration 2026_11_23_100) so that reads need not add them up;
   * null when not known (readers then add up the lines).
   */
  lines_net: Generated<number | null>;
  lines_tax: Generated<number | null>;
  lines_gross: Generated<number | null>;
  lines_taxes: Generated<string | null>;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

/** A position of an invoice or offer (offer_items has the same columns with offer_id). */
export interface DocumentItemColumns {
  id: Generated<number>;
  account_id: number;
  position: number;
  title: string;
  description: string | null;
  /** Exact decimal string, up to 4 decimals. */
  quantity: string;
  unit: string | null;
  /** Cents. */
  unit_price: number;
  /** Percent, exact decimal string. */
  tax_rate: string;
  /** Percent, exact decimal string, or null. */
  discount: string | null;
  /** Cents, rounded per line. */
  net_total: number;
}

export interface OutgoingInvoiceItemTable extends DocumentItemColumns {
  invoice_id: number;
}

export interface InvoiceNumberCounterTable {
  account_id: number;
  kind: string;
  /** The year of the invoice date, or 0 when the number format has no year. */
  year: number;
  last_value: Generated<number>;
}

declare module '../../db/schema.js' {
  interface Database {
    outgoing_invoices: OutgoingInvoiceTable;
    outgoing_invoice_items: OutgoingInvoiceItemTable;
    invoice_number_counters: InvoiceNumberCounterTable;
  }
}
