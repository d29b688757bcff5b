/**
 * The shape of what data extraction reads from an incoming document, shared by every reader
 * (EN 16931 XML in its syntaxes, the text layer of a PDF, OCR of a scan) and by the code that
 * stores it. Pure types: no reader imports another, they meet here.
 *
 * Rules every reader keeps (issue 11, "honest results"):
 * - A field not read is absent. Nothing is derived without saying so: a value computed from
 *   others (e.g. net = gross − tax) carries `derived: true` in its provenance.
 * - Money is a decimal string with two places ("1234.50"), never a float. Documents are stored
 *   with non-negative amounts; a credit note is `document_type: 'Credit'` with the amounts of
 *   the credit (a negative-total invoice becomes a Credit with the absolute amounts).
 * - Dates are `YYYY-MM-DD`; country codes ISO 3166-1 alpha-2; currency ISO 4217.
 */

/** Where a stored field's value came from. */
export type FieldSource = 'xml' | 'pdf_text' | 'ocr' | 'request';

export interface Provenance {
  source: FieldSource;
  /** 0..1: 1 for values read from XML or given in the request; a layout/OCR reader's own estimate. */
  confidence: number;
  /** True when the value was computed from other fields rather than read. */
  derived?: boolean;
}

/** One VAT rate's part of the document (EN 16931 BG-23). */
export interface TaxBreakdown {
  /** Percentage as a decimal string: "19", "7", "5.5", "0". */
  rate: string;
  net: string;
  tax: string;
  /** UNTDID 5305 category code (S, Z, E, AE, K, G, O, L, M), when read. */
  category?: string;
  exemption_reason?: string;
}

export interface ExtractedLine {
  title?: string;
  description?: string;
  quantity?: string;
  /** UN/ECE Rec. 20 code when read from XML (e.g. "HUR", "C62"), or the printed unit. */
  unit?: string;
  unit_price?: string;
  net_total?: string;
  tax_rate?: string;
}

export interface ExtractedFields {
  document_type?: 'Invoice' | 'Credit';
  invoice_number?: string;
  date?: string;
  due_date?: string;
  delivery_date?: string;
  service_period_start?: string;
  service_period_end?: string;
  currency?: string;
  net_total?: string;
  tax_total?: string;
  gross_total?: string;
  /** Amount paid in advance (BT-113). */
  prepaid_total?: string;
  /** Amount due for payment (BT-115). */
  amount_due?: string;
  /** Buyer reference / Leitweg-ID (BT-10). */
  buyer_reference?: string;
  supplier_name?: string;
  supplier_street?: string;
  supplier_postcode?: string;
  supplier_city?: string;
  supplier_country?: string;
  supplier_vat_id?: string;
  supplier_tax_number?: string;
  iban?: string;
  bic?: string;
  /** Remittance information (BT-83). */
  payment_reference?: string;
  taxes?: TaxBreakdown[];
  line_items?: ExtractedLine[];
}

export type FieldName = keyof ExtractedFields;

/**
 * Why extraction read nothing, or less than the whole document, or doubts what it read. A
 * program branches on `code`; `message` is for people.
 */
export type ExtractionWarningCode =
  | 'not_an_invoice' // well-formed XML/PDF that is not an invoice or credit note
  | 'malformed_xml'
  | 'unsupported_format' // a file type no reader handles
  | 'encrypted_pdf'
  | 'no_text_layer' // a PDF page without text (OCR will read it, or did)
  | 'pages_truncated' // pages beyond the configured cap were not read
  | 'totals_inconsistent' // net + tax ≠ gross, or the VAT breakdown does not add up
  | 'low_confidence' // some field was read with low confidence (see provenance)
  | 'invalid_value' // a value read fails its check (IBAN/BIC: not stored; VAT id format: stored, flagged)
  | 'pdf_too_large' // decompression limit
  | 'xml_doctype'
  | 'xml_too_large'
  | 'xml_too_deep'
  | 'timeout'
  | 'out_of_memory'
  | 'unreadable'
  | 'ocr_failed';

export interface ExtractionWarning {
  code: ExtractionWarningCode | string;
  message: string;
  /** The field the warning is about, where there is one. */
  field?: string;
}

/**
 * `pending`: a job will read the file (OCR, large PDF); `done`: read (perhaps with warnings);
 * `failed`: gave up after retries; `skipped`: no file, or `file_was_preprocessed`.
 */
export type ExtractionStatus = 'pending' | 'done' | 'failed' | 'skipped';

/** The document syntax or reader that produced the values. */
export type ExtractionMethod = 'ubl' | 'cii' | 'zugferd1' | 'pdf_text' | 'ocr';

export interface ExtractionOutcome {
  fields: ExtractedFields;
  provenance: Partial<Record<FieldName, Provenance>>;
  warnings: ExtractionWarning[];
  method?: ExtractionMethod;
  /** Pages in the document (PDF, TIFF), when known. */
  pages?: number;
  /** True when the document needs OCR (an image, or PDF pages without text) to be read. */
  needs_ocr?: boolean;
}

/**
 * A word with its box, in the page's own units with the origin at the top left and y growing
 * downwards (PDF text items are converted to this). The PDF text layer and OCR both produce
 * pages of words; the same layout logic turns them into fields.
 */
export interface Word {
  text: string;
  x: number;
  y: number;
  w: number;
  h: number;
  /** OCR's word confidence 0..1; absent for a PDF text layer (exact). */
  confidence?: number;
}

export interface PageWords {
  /** 1-based. */
  page: number;
  width: number;
  height: number;
  words: Word[];
}
