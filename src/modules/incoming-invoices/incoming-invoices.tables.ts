import type { Generated } from 'kysely';

export interface IncomingInvoiceTable {
  id: Generated<number>;
  account_id: number;
  document_type: string;
  supplier_id: number | null;
  supplier_name: string | null;
  supplier_vat_id: string | null;
  invoice_number: string | null;
  date: string | null;
  due_date: string | null;
  currency: Generated<string>;
  /** Money in minor units (cents). */
  net_total: Generated<number>;
  tax_total: Generated<number>;
  gross_total: Generated<number>;
  paid_total: Generated<number>;
  status: Generated<string>;
  description: string | null;
  file_id: number | null;
  file_md5: string | null;
  file_was_preprocessed: Generated<number>;
  /** JSON array of field names filled in by data extraction. */
  extracted_fields: Generated<string>;
  delivery_date: string | null;
  service_period_start: string | null;
  service_period_end: string | null;
  /** Cents, like the totals; null when not known. */
  prepaid_total: number | null;
  amount_due: number | null;
  buyer_reference: string | null;
  supplier_street: string | null;
  supplier_postcode: string | null;
  supplier_city: string | null;
  supplier_country: string | null;
  supplier_tax_number: string | null;
  iban: string | null;
  bic: string | null;
  payment_reference: string | null;
  /** JSON: TaxBreakdown[] (decimal strings), or null. */
  taxes: string | null;
  /** JSON: ExtractedLine[] (decimal strings), or null. */
  line_items: string | null;
  /** ExtractionStatus: pending, done, failed, skipped. */
  extraction_status: Generated<string>;
  /** ExtractionMethod of the values stored, or null. */
  extraction_method: string | null;
  /** JSON: ExtractionWarning[]. */
  extraction_warnings: Generated<string>;
  /** JSON: field name -> Provenance, for the extracted values stored. */
  extraction_provenance: Generated<string>;
  /** JSON: field names the caller set (request or PATCH); extraction never overwrites them. */
  request_fields: Generated<string>;
  /** Where the document came from when not uploaded through the API (mailbox intake). */
  source_mailbox_id: Generated<number | null>;
  source_message_id: Generated<string | null>;
  source_sender: Generated<string | null>;
  source_subject: Generated<string | null>;
  /** The SEPA credit transfer run (modules/sepa) paying it, until the bank statement confirms it. */
  payment_in_transit_run_id: Generated<number | null>;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

export interface IncomingInvoiceBookingTable {
  id: Generated<number>;
  account_id: number;
  incoming_invoice_id: number;
  chart_of_account_id: number;
  cost_center: string | null;
  amount: number;
  tax_rate: string | null;
  description: string | null;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

declare module '../../db/schema.js' {
  interface Database {
    incoming_invoices: IncomingInvoiceTable;
    incoming_invoice_bookings: IncomingInvoiceBookingTable;
  }
}
