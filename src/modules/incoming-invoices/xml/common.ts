import { Decimal } from 'decimal.js';
import type {
  ExtractedFields,
  ExtractedLine,
  ExtractionMethod,
  ExtractionOutcome,
  ExtractionWarning,
  FieldName,
  TaxBreakdown,
} from '../extraction.model.js';
import { attr, decimal, type Node, plain, str } from './tree.js';

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

/** The amount in the document currency where a total is repeated in the tax currency (BT-111). */
export const inCurrency = (nodes: Node[], currency: string | undefined): Node | undefined =>
  nodes.find((n) => currency !== undefined && attr(n, 'currencyID') === currency) ?? nodes[0];

/** Price per one unit: the price may be given for a base quantity (BT-149). */
export const perUnit = (price: Decimal | undefined, base: Decimal | undefined) =>
  price && base && !base.isZero() && !base.eq(1) ? price.div(base).toDecimalPlaces(6) : price;

/** A document line from its nodes, which each syntax finds under its own names. */
export function lineOf(l: {
  /** The item or product: `Name` and `Description`. */
  item: Node;
  /** The quantity node, with its `unitCode`. */
  quantity: Node;
  price: unknown;
  baseQuantity: unknown;
  net: unknown;
  rate: unknown;
}): RawDocument['lines'][number] {
  return {
    title: str(l.item.Name),
    description: str(l.item.Description),
    quantity: decimal(l.quantity),
    unit: attr(l.quantity, 'unitCode'),
    unit_price: perUnit(decimal(l.price), decimal(l.baseQuantity)),
    net_total: decimal(l.net),
    tax_rate: decimal(l.rate),
  };
}

/** Identifier text without inner blanks, upper case (VAT ids, IBAN, BIC). */
export const compact = (v: string | undefined) => v?.replace(/\s+/g, '').toUpperCase();
