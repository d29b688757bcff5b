/**
 * What a document PDF shows: the invoicing module maps offers and outgoing invoices to this,
 * the renderer knows nothing of the database. Amounts and quantities are exact decimal
 * strings ("1234.50", "1.5"), never floats; percentages likewise ("19", "7").
 */
export interface PdfParty {
  name: string;
  /** Contact person or department line under the name. */
  attention?: string | null;
  street?: string | null;
  zip?: string | null;
  city?: string | null;
  /** ISO 3166-1 alpha-2. */
  country_code?: string | null;
  vat_id?: string | null;
  tax_number?: string | null;
  email?: string | null;
  phone?: string | null;
}

export interface PdfLine {
  position: number;
  title: string;
  description?: string | null;
  quantity: string;
  /** UN/ECE Rec 20 code or a free text like "h"; the XML maps common ones. */
  unit?: string | null;
  unit_price: string;
  tax_rate: string;
  /** Discount in percent, if any. */
  discount?: string | null;
  net_total: string;
}

/** EN 16931 VAT category (UNCL 5305) of a rate; S standard, Z zero-rated, E exempt, AE reverse charge,
 * K intra-community supply, G export, O not subject to VAT. */
export type PdfTaxCategory = 'S' | 'Z' | 'E' | 'AE' | 'K' | 'G' | 'O';

export interface PdfTaxEntry {
  rate: string;
  net: string;
  tax: string;
  /** Default: S for a rate above 0, E (exempt) for 0. Lines take the category of their rate. */
  category?: PdfTaxCategory | null;
  /** Printed under the totals and sent as BT-120; a default per category is used when absent. */
  exemption_reason?: string | null;
  /** VATEX code (BT-121), e.g. VATEX-EU-AE. */
  exemption_reason_code?: string | null;
}

/** A deduction on a final invoice of a partial plan (an earlier booked deposit or partial). */
export interface PdfDeduction {
  title: string;
  number?: string | null;
  net: string;
  tax: string;
  gross: string;
}

export interface PdfDocument {
  kind: 'invoice' | 'credit' | 'offer' | 'deposit' | 'partial' | 'final';
  /** Heading printed on the document, e.g. "Invoice", "Credit note", "Offer". */
  title: string;
  /** Invoice or offer number; null prints as a draft. */
  number: string | null;
  /**
   * When the document last changed: the PDF's creation date, so that an unchanged document
   * renders the same bytes (an e-mailed offer is its download). Absent: the time of rendering.
   */
  changed_at?: string;
  date: string | null;
  due_date?: string | null;
  service_period_start?: string | null;
  service_period_end?: string | null;
  /** The date of supply (BT-72) when there is no service period. */
  service_date?: string | null;
  /** The supply date was taken to be the invoice date: the document says so. */
  service_date_is_invoice_date?: boolean;
  /** ISO 4217. */
  currency: string;
  /** Language of the labels: 'en' or 'de'. */
  language?: 'en' | 'de';
  /** The seller's `attention` is its contact person (BT-41); phone and e-mail BT-42/43. */
  seller: PdfParty & { iban?: string | null; bic?: string | null; bank_name?: string | null };
  buyer: PdfParty;
  /** The buyer's reference (e.g. PO number), the credited invoice's number … */
  references?: { label: string; value: string }[];
  intro_text?: string | null;
  lines: PdfLine[];
  taxes: PdfTaxEntry[];
  net_total: string;
  tax_total: string;
  gross_total: string;
  deductions?: PdfDeduction[];
  /** Gross minus deductions and payments; what the buyer still has to pay. */
  amount_due?: string;
  paid_total?: string;
  payment_terms?: string | null;
  closing_text?: string | null;
  /** XML only (BT-10), e.g. a German Leitweg-ID; print it through `references` as well if wanted. */
  buyer_reference?: string | null;
  /** XML only (BT-13): the buyer's purchase order number. */
  order_reference?: string | null;
  /** XML only (BT-25/26): the invoice a credit note corrects. */
  preceding_invoice?: { number: string; date?: string | null } | null;
  /** Booked invoices embed the EN 16931 (Factur-X / ZUGFeRD) XML. */
  booked: boolean;
  /**
   * The seller's logo, by the SHA-256 of its image: the document (frozen at booking) names it,
   * the caller of renderDocumentPdf passes its bytes. Absent or null: no logo.
   */
  logo?: { sha256: string; content_type: string } | null;
  /**
   * The GiroCode (EPC QR code) printed below the payment terms. Decided when the document is
   * made (and frozen with it at booking): documents frozen without it print none, so their
   * bytes stay what they were.
   */
  giro_code?: PdfGiroCode | null;
  /** Pages appended after the document: the efforts an invoice bills (never frozen or kept). */
  timesheet?: PdfTimesheetRow[] | null;
}

/** What an EPC QR code carries: the payee, the amount in euros, a reference or else a text. */
export interface PdfGiroCode {
  name: string;
  /** Electronic form, no blanks. */
  iban: string;
  bic: string | null;
  /** Exact decimal string, e.g. "1190.00". */
  amount: string;
  /** ISO 11649 creditor reference (RF…), when the invoice number yields one. */
  reference: string | null;
  /** The remittance text when there is no reference (the invoice number). */
  text: string | null;
}

/** One billed effort of a timesheet page; decimals as strings, as everywhere here. */
export interface PdfTimesheetRow {
  position: number;
  date: string;
  person: string;
  /** Task and description, as one text. */
  what: string;
  hours: string;
  rate: string;
  amount: string;
}
