import { Decimal } from 'decimal.js';
import { XMLParser } from 'fast-xml-parser';
import { type PdfProblem, pdfProblem } from './pdf-guard.js';
import { type XmlLimits, type XmlProblem, xmlProblem } from './xml-guard.js';

/** Values read from an uploaded document; money as decimal strings with two places. */
export interface Extracted {
  document_type?: 'Invoice' | 'Credit';
  invoice_number?: string;
  date?: string;
  due_date?: string;
  currency?: string;
  net_total?: string;
  tax_total?: string;
  gross_total?: string;
  supplier_name?: string;
  supplier_vat_id?: string;
}

/**
 * Why extraction gave up or read only part of a document. The document is stored all the
 * same, without values from the part that was not read.
 */
export type ExtractionWarning =
  | PdfProblem
  | XmlProblem
  | 'pages_truncated'
  | 'timeout'
  | 'out_of_memory'
  | 'unreadable';

export interface ExtractionResult {
  fields: Extracted;
  warnings: ExtractionWarning[];
}

export interface ExtractionLimits extends XmlLimits {
  /** Total bytes the streams of a PDF may decode to (measured before pdf.js reads it). */
  maxDecodedBytes: number;
  /** Pages whose text layer is read. */
  maxPages: number;
}

export const DEFAULT_LIMITS: ExtractionLimits = {
  maxDecodedBytes: 64 * 1024 * 1024,
  maxPages: 5,
  // EN 16931 CII documents with thousands of lines stay below a few MB and a depth of 15.
  maxChars: 16 * 1024 * 1024,
  maxDepth: 64,
  maxAttributes: 32,
};

/** What a worker thread is sent for one document. */
export interface ExtractionJob {
  data: Uint8Array;
  contentType: string;
  limits: ExtractionLimits;
}

/** A limit the document broke: extraction stops with this warning. */
class LimitHit extends Error {
  constructor(readonly warning: ExtractionWarning) {
    super(warning);
  }
}

const XML_NAMES = ['factur-x.xml', 'zugferd-invoice.xml', 'xrechnung.xml'];
/** UNTDID 1001 codes of credit notes. */
const CREDIT_CODES = new Set(['381', '396', '532']);

type Node = Record<string, unknown>;
const obj = (v: unknown): Node => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Node) : {});
const list = (v: unknown): unknown[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
const str = (v: unknown): string | undefined => {
  const s = typeof v === 'object' && v !== null ? (v as Node)['#text'] : v;
  return s === undefined || s === null || String(s).trim() === '' ? undefined : String(s).trim();
};
const money = (v: unknown): string | undefined => {
  const s = str(v);
  if (s === undefined || !/^-?\d+(\.\d+)?$/.test(s)) return undefined;
  return new Decimal(s).abs().toFixed(2);
};
const cii102 = (v: unknown): string | undefined => {
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(str(obj(v).DateTimeString) ?? '');
  return m ? `${m[1]}-${m[2]}-${m[3]}` : undefined;
};

/**
 * Reads an EN 16931 CII document (Factur-X / ZUGFeRD 2.x / XRechnung CII); throws LimitHit
 * for a document beyond `limits`.
 */
export function fromCiiXml(xml: string, limits: XmlLimits = DEFAULT_LIMITS): Extracted {
  const problem = xmlProblem(xml, limits);
  if (problem) throw new LimitHit(problem);
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@',
    removeNSPrefix: true,
    parseTagValue: false,
    // Only the five predefined entities (`&amp;` …) and character references: a DOCTYPE,
    // the one place new entities could be declared, never gets here (xmlProblem).
    processEntities: true,
    htmlEntities: false,
    maxNestedTags: limits.maxDepth,
  });
  const root = obj(obj(parser.parse(xml)).CrossIndustryInvoice);
  const doc = obj(root.ExchangedDocument);
  const trade = obj(root.SupplyChainTradeTransaction);
  const seller = obj(obj(trade.ApplicableHeaderTradeAgreement).SellerTradeParty);
  const settlement = obj(trade.ApplicableHeaderTradeSettlement);
  const sums = obj(settlement.SpecifiedTradeSettlementHeaderMonetarySummation);
  const vat = list(seller.SpecifiedTaxRegistration)
    .map((r) => obj(obj(r).ID))
    .find((id) => id['@schemeID'] === 'VA');
  const taxTotals = list(sums.TaxTotalAmount);
  const out: Extracted = {
    document_type: CREDIT_CODES.has(str(doc.TypeCode) ?? '') ? 'Credit' : 'Invoice',
    invoice_number: str(doc.ID),
    date: cii102(doc.IssueDateTime),
    due_date: cii102(obj(list(settlement.SpecifiedTradePaymentTerms)[0]).DueDateDateTime),
    currency: str(settlement.InvoiceCurrencyCode),
    net_total: money(sums.TaxBasisTotalAmount),
    tax_total: money(taxTotals[0]),
    gross_total: money(sums.GrandTotalAmount),
    supplier_name: str(seller.Name),
    supplier_vat_id: vat ? str(vat) : undefined,
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined)) as Extracted;
}

const DATE_RE = /\b(\d{1,2})\.(\d{1,2})\.(\d{4})\b|\b(\d{4})-(\d{2})-(\d{2})\b/;

function parseDate(text: string): string | undefined {
  const m = DATE_RE.exec(text);
  if (!m) return undefined;
  const [y, mo, d] = m[4] ? [m[4], m[5]!, m[6]!] : [m[3]!, m[2]!.padStart(2, '0'), m[1]!.padStart(2, '0')];
  const iso = `${y}-${mo}-${d}`;
  const t = new Date(`${iso}T00:00:00Z`);
  return !Number.isNaN(t.getTime()) && t.toISOString().startsWith(iso) ? iso : undefined;
}

/** "1.234,56" or "1,234.56" or "1234.56" -> "1234.56"; anything ambiguous -> undefined. */
function parseAmount(s: string): string | undefined {
  const m = /^(\d{1,3}(?:([.,\s\u00a0\u202f])\d{3})*|\d+)([.,])(\d{2})$/.exec(s.trim());
  if (!m) return undefined;
  if (m[2] && m[2] === m[3]) return undefined;
  return new Decimal(`${m[1]!.replace(/[.,\s\u00a0\u202f]/g, '')}.${m[4]}`).toFixed(2);
}

/**
 * Conservative patterns over the text layer: a value is taken only where a label names it,
 * so a document that does not say it plainly yields nothing rather than a wrong guess.
 */
export function fromText(raw: string): Extracted {
  const text = raw.replace(/[\u00a0\u202f]/g, ' ').replace(/[ \t]+/g, ' ');
  const out: Extracted = {};
  const number =
    /(?:Rechnungs(?:-?nummer|-?nr\.?)|Invoice\s*(?:number|no\.?|#)|Gutschrift(?:s?nummer|s?-?nr\.?))\s*:?\s*([A-Z0-9][A-Z0-9\-/_.]{1,39})/i.exec(
      text,
    );
  if (number) out.invoice_number = number[1]!.replace(/[.]$/, '');
  const date = /(?:Rechnungsdatum|Invoice\s*date|Datum|Date)\s*:?\s*([0-9][0-9.-]{7,9})/i.exec(text);
  const iso = date ? parseDate(date[1]!) : undefined;
  if (iso) out.date = iso;
  const gross =
    /(?:Gesamtbetrag|Rechnungsbetrag|Bruttobetrag|Gesamt\s*brutto|Total\s*(?:amount|due|gross)|Amount\s*due|Zahlbetrag)\s*(?:\([^)]*\))?\s*:?\s*(?:EUR|€)?\s*(\d[\d.,\s]*\d)/i.exec(
      text,
    );
  const amount = gross ? parseAmount(gross[1]!) : undefined;
  if (amount) out.gross_total = amount;
  // The buyer's VAT id is printed too ("Ihre USt-IdNr.", "Your VAT ID"): never take that one.
  const vat =
    /(?<!(?:Ihre|Your)\s)\b(?:USt-?Id(?:Nr)?\.?|VAT\s*(?:ID|No\.?|number)|UID)\s*:?\s*([A-Z]{2}\s?[0-9A-Z]{8,12})\b/i.exec(
      text,
    );
  if (vat) out.supplier_vat_id = vat[1]!.replace(/\s+/g, '').toUpperCase();
  return out;
}

/**
 * Data extraction from an uploaded file: the embedded EN 16931 XML of a Factur-X/ZUGFeRD PDF
 * when there is one (exact), else the PDF's text layer (patterns), else a bare XML e-invoice.
 * Images and scanned PDFs without a text layer yield nothing: no OCR engine is bundled.
 * Runs in a worker thread (extraction.pool.ts); time and memory are bounded there.
 */
export async function extractInvoiceData(
  data: Buffer,
  contentType: string,
  limits: ExtractionLimits = DEFAULT_LIMITS,
): Promise<ExtractionResult> {
  try {
    if (contentType === 'application/pdf' || data.subarray(0, 5).toString('latin1') === '%PDF-')
      return await fromPdf(data, limits);
    if (/xml/.test(contentType)) return { fields: fromCiiXml(data.toString('utf8'), limits), warnings: [] };
    return { fields: {}, warnings: [] };
  } catch (err) {
    // An unreadable file is stored as it is; extraction is a convenience, not a gate.
    return { fields: {}, warnings: [err instanceof LimitHit ? err.warning : 'unreadable'] };
  }
}

async function fromPdf(data: Buffer, limits: ExtractionLimits): Promise<ExtractionResult> {
  const problem = await pdfProblem(data, limits.maxDecodedBytes);
  if (problem) throw new LimitHit(problem);
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const pdf = await getDocument({
    data: new Uint8Array(data),
    useSystemFonts: false,
    verbosity: 0,
    isEvalSupported: false,
  }).promise;
  try {
    const attachments = (await pdf.getAttachments()) as Record<
      string,
      { filename: string; content: Uint8Array }
    > | null;
    for (const file of Object.values(attachments ?? {})) {
      if (XML_NAMES.includes(file.filename.toLowerCase())) {
        const found = fromCiiXml(new TextDecoder().decode(file.content), limits);
        if (found.invoice_number || found.gross_total) return { fields: found, warnings: [] };
      }
    }
    const pages: string[] = [];
    for (let i = 1; i <= Math.min(pdf.numPages, limits.maxPages); i++) {
      const content = await (await pdf.getPage(i)).getTextContent();
      pages.push(content.items.map((item) => ('str' in item ? item.str : '')).join(' '));
    }
    return {
      fields: fromText(pages.join('\n')),
      warnings: pdf.numPages > limits.maxPages ? ['pages_truncated'] : [],
    };
  } finally {
    await pdf.destroy();
  }
}
