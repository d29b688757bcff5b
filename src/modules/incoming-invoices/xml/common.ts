import { Decimal } from 'decimal.js';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type {
  ExtractedFields,
  ExtractedLine,
  ExtractionMethod,
  ExtractionOutcome,
  ExtractionWarning,
  FieldName,
  TaxBreakdown,
} from '../extraction.model.js';
import { type XmlLimits, xmlProblem } from '../xml-guard.js';

/** A parsed element: children by local name (namespace prefixes removed), attributes as `@name`. */
export type Node = Record<string, unknown>;

export const obj = (v: unknown): Node =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Node) : Array.isArray(v) ? obj(v[0]) : {};
export const list = (v: unknown): Node[] =>
  (v === undefined ? [] : Array.isArray(v) ? v : [v]).map((x) =>
    typeof x === 'object' && x !== null ? (x as Node) : { '#text': x },
  );
export const str = (v: unknown): string | undefined => {
  const first = Array.isArray(v) ? v[0] : v;
  const s = typeof first === 'object' && first !== null ? (first as Node)['#text'] : first;
  if (s === undefined || s === null) return undefined;
  const t = String(s).replace(/\s+/g, ' ').trim();
  return t === '' ? undefined : t;
};
export const attr = (v: unknown, name: string): string | undefined => str(obj(v)[`@${name}`]);

/** An XML decimal ("-12.5", "+3") as a Decimal, or undefined when it is not one. */
export const decimal = (v: unknown): Decimal | undefined => {
  const s = str(v);
  return s !== undefined && /^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(s) ? new Decimal(s) : undefined;
};
/** Plain decimal text without trailing zeros ("19", "5.5"). */
export const plain = (d: Decimal | undefined) => (d === undefined ? undefined : d.toFixed());

/** `YYYY-MM-DD` when the text is a real calendar date (UBL `2026-01-31`, CII 102 `20260131`). */
export function isoDate(v: unknown): string | undefined {
  const s = str(v);
  const m = s ? (/^(\d{4})-?(\d{2})-?(\d{2})(?:$|T|Z|[+-]\d)/.exec(s) ?? null) : null;
  if (!m) return undefined;
  const iso = `${m[1]}-${m[2]}-${m[3]}`;
  const t = new Date(`${iso}T00:00:00Z`);
  return !Number.isNaN(t.getTime()) && t.toISOString().startsWith(iso) ? iso : undefined;
}

/** UNTDID 1001 document types that are credit notes (EN 16931 allows 381, 396, 532, 261, 262, 81, 83, …). */
export const CREDIT_CODES = new Set([
  '81',
  '83',
  '261',
  '262',
  '296',
  '308',
  '381',
  '396',
  '420',
  '458',
  '532',
]);

export class MalformedXml extends Error {}
export class XmlLimitHit extends Error {
  constructor(readonly code: string) {
    super(code);
  }
}

/**
 * Parses an XML text after the guard's linear pre-scan (DOCTYPE, depth, attribute caps) and a
 * well-formedness check: a truncated file is `malformed_xml`, never a half-read document.
 */
export function parseXml(xml: string, limits: XmlLimits): Node {
  const problem = xmlProblem(xml, limits);
  if (problem) throw new XmlLimitHit(problem);
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new MalformedXml(`${valid.err.msg} (line ${valid.err.line})`);
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@',
    removeNSPrefix: true,
    parseTagValue: false,
    parseAttributeValue: false,
    // Only the five predefined entities (`&amp;` …) and character references: a DOCTYPE,
    // the one place new entities could be declared, never gets here (xmlProblem).
    processEntities: true,
    htmlEntities: false,
    maxNestedTags: limits.maxDepth,
  });
  return obj(parser.parse(xml));
}

/** What a syntax reader collects: signed amounts as read, before the credit rule and checks. */
export interface RawDocument {
  method: ExtractionMethod;
  typeCode?: string;
  /** UBL CreditNote: a credit note whatever its type code says. */
  creditByRoot?: boolean;
  fields: Omit<
    ExtractedFields,
    'net_total' | 'tax_total' | 'gross_total' | 'prepaid_total' | 'amount_due' | 'taxes' | 'line_items'
  >;
  net?: Decimal;
  tax?: Decimal;
  gross?: Decimal;
  prepaid?: Decimal;
  due?: Decimal;
  /** Rounding amount (BT-114): part of amount due = gross − prepaid + rounding. */
  rounding?: Decimal;
  taxes: { rate?: Decimal; net?: Decimal; tax?: Decimal; category?: string; exemption_reason?: string }[];
  lines: {
    title?: string;
    description?: string;
    quantity?: Decimal;
    unit?: string;
    unit_price?: Decimal;
    net_total?: Decimal;
    tax_rate?: Decimal;
  }[];
}

const money = (d: Decimal | undefined) => (d === undefined ? undefined : d.abs().toFixed(2));
const signed = (d: Decimal | undefined, flip: boolean) =>
  d === undefined ? undefined : (flip ? d.negated() : d).toFixed();

/**
 * Turns what a syntax reader collected into the shared outcome: a credit note is `Credit`
 * with the amounts of the credit (an invoice with a negative total is a credit, a credit note
 * with a negative total an invoice), amounts checked against each other (a mismatch is a
 * warning, the values are kept as read), every value with provenance `xml`, confidence 1.
 */
export function toOutcome(raw: RawDocument): ExtractionOutcome {
  const warnings: ExtractionWarning[] = [];
  const creditType = raw.creditByRoot === true || CREDIT_CODES.has(raw.typeCode ?? '');
  const total = raw.gross ?? raw.due ?? raw.net;
  const negative = total?.lt(0) === true;
  const isCredit = creditType !== negative;
  // Amounts of a document that changed its kind by its sign are read with the sign turned.
  const flip = negative;
  const fields: ExtractedFields = {
    ...(raw.typeCode !== undefined || raw.creditByRoot !== undefined
      ? { document_type: isCredit ? 'Credit' : 'Invoice' }
      : {}),
    ...raw.fields,
    net_total: money(raw.net),
    tax_total: money(raw.tax),
    gross_total: money(raw.gross),
    prepaid_total: money(raw.prepaid),
    amount_due: money(raw.due),
  };
  const taxes: TaxBreakdown[] = [];
  for (const t of raw.taxes) {
    if (t.rate === undefined && t.net === undefined && t.tax === undefined) continue;
    taxes.push(
      strip({
        rate: plain(t.rate) ?? (t.category === 'S' ? undefined : '0'),
        net: signed(t.net, flip) !== undefined ? new Decimal(signed(t.net, flip)!).toFixed(2) : '0.00',
        tax: signed(t.tax, flip) !== undefined ? new Decimal(signed(t.tax, flip)!).toFixed(2) : '0.00',
        category: t.category,
        exemption_reason: t.exemption_reason,
      }) as TaxBreakdown,
    );
  }
  if (taxes.length) fields.taxes = taxes.filter((t) => t.rate !== undefined);
  const lines: ExtractedLine[] = raw.lines.map((l) =>
    strip({
      title: l.title,
      description: l.description,
      quantity: signed(l.quantity, flip),
      unit: l.unit,
      unit_price: plain(l.unit_price),
      net_total:
        l.net_total === undefined ? undefined : (flip ? l.net_total.negated() : l.net_total).toFixed(2),
      tax_rate: plain(l.tax_rate),
    }),
  );
  if (lines.length) fields.line_items = lines;
  const clean = strip(fields) as ExtractedFields;
  checkTotals(raw, warnings);
  const provenance: ExtractionOutcome['provenance'] = {};
  for (const k of Object.keys(clean) as FieldName[]) provenance[k] = { source: 'xml', confidence: 1 };
  return { fields: clean, provenance, warnings, method: raw.method };
}

function checkTotals(raw: RawDocument, warnings: ExtractionWarning[]) {
  const problems: string[] = [];
  const { net, tax, gross, prepaid, due, rounding } = raw;
  if (net && tax && gross && !net.plus(tax).eq(gross))
    problems.push(`net ${net} + tax ${tax} ≠ gross ${gross}`);
  if (gross && due) {
    const expected = gross.minus(prepaid ?? 0).plus(rounding ?? 0);
    if (!expected.eq(due)) problems.push(`gross ${gross} − prepaid ${prepaid ?? 0} ≠ amount due ${due}`);
  }
  if (raw.taxes.length && tax) {
    const sum = raw.taxes.reduce((s, t) => s.plus(t.tax ?? 0), new Decimal(0));
    if (!sum.eq(tax)) problems.push(`VAT breakdown ${sum} ≠ tax total ${tax}`);
  }
  if (raw.taxes.length && net) {
    const sum = raw.taxes.reduce((s, t) => s.plus(t.net ?? 0), new Decimal(0));
    if (!sum.eq(net)) problems.push(`VAT breakdown bases ${sum} ≠ net total ${net}`);
  }
  if (problems.length)
    warnings.push({
      code: 'totals_inconsistent',
      message: `The document's totals do not add up: ${problems.join('; ')}`,
    });
}

export function strip<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** Street and additional lines of an address joined with ", ". */
export const joinLines = (...parts: (string | undefined)[]) => {
  const kept = parts.filter((p): p is string => p !== undefined);
  return kept.length ? kept.join(', ') : undefined;
};

/** Identifier text without inner blanks, upper case (VAT ids, IBAN, BIC). */
export const compact = (v: string | undefined) => v?.replace(/\s+/g, '').toUpperCase();
