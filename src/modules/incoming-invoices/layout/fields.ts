import { Decimal } from 'decimal.js';
import type {
  ExtractedFields,
  ExtractionOutcome,
  ExtractionWarning,
  FieldName,
  PageWords,
  Provenance,
  TaxBreakdown,
} from '../extraction.model.js';
import { type Candidate, type Scan, scanLabels } from './candidates.js';
import type { Target } from './labels.js';
import { lineItemsFromLines } from './line-items.domain.js';
import { type Line, toLines } from './lines.js';
import { supplierParty } from './supplier.js';
import { detectLang, findAmounts, findDates, type Lang } from './values.js';

/** At or above this, a value is reported as sure: it must then be right. */
export const HIGH = 0.9;

type Source = 'pdf_text' | 'ocr';

class Result {
  fields: ExtractedFields = {};
  provenance: Partial<Record<FieldName, Provenance>> = {};
  warnings: ExtractionWarning[] = [];
  constructor(readonly source: Source) {}

  set<K extends FieldName>(field: K, value: ExtractedFields[K], confidence: number, derived = false): void {
    if (value === undefined) return;
    this.fields[field] = value;
    const c = Math.round(Math.max(0, Math.min(1, confidence)) * 100) / 100;
    this.provenance[field] = { source: this.source, confidence: c, ...(derived ? { derived: true } : {}) };
  }

  warn(code: string, message: string, field?: string): void {
    if (!this.warnings.some((w) => w.code === code && w.field === field))
      this.warnings.push({ code, message, ...(field ? { field } : {}) });
  }
}

const of = (scan: Scan, target: Target): Candidate[] =>
  scan.candidates.filter((c) => c.target === target).sort((a, b) => b.rank - a.rank || a.line - b.line);

/** Distinct values among the best-ranked candidates. */
function best(cands: Candidate[]): { top: Candidate | undefined; rivals: number; all: number } {
  const top = cands[0];
  if (!top) return { top, rivals: 0, all: 0 };
  const topValues = new Set(cands.filter((c) => c.rank === top.rank).map((c) => c.value + (c.value2 ?? '')));
  const allValues = new Set(cands.map((c) => c.value + (c.value2 ?? '')));
  return { top, rivals: topValues.size - 1, all: allValues.size };
}

/**
 * OCR misreads characters and a check digit or a sum is the only thing that proves it did
 * not: without one, an OCR value is never reported as sure.
 */
const capFor = (source: Source, c: Candidate | undefined, checked: boolean): number =>
  source === 'ocr' && !checked ? Math.min(0.85, 0.6 + 0.25 * (c?.ocr ?? 1)) : 1;

function simpleField(
  r: Result,
  scan: Scan,
  target: Target,
  field: FieldName,
  sureConfidence: number,
  checked = false,
): Candidate | undefined {
  const { top, rivals, all } = best(of(scan, target));
  if (!top) return undefined;
  let confidence = top.rank >= 10 ? sureConfidence : sureConfidence - 0.15;
  if (top.how === 'scan') confidence = Math.min(confidence, 0.75);
  if (!top.sure) confidence = Math.min(confidence, 0.6);
  if (rivals > 0) confidence = 0.5;
  else if (all > 1) confidence -= 0.1;
  confidence = Math.min(confidence, capFor(r.source, top, checked));
  r.set(field, top.value as never, confidence);
  if (rivals > 0)
    r.warn('low_confidence', `several different values for ${field}; the first was taken`, field);
  return top;
}

const dec = (s: string): Decimal => new Decimal(s);
const eq = (a: Decimal, b: Decimal): boolean => a.minus(b).abs().lte(0.011);

interface Totals {
  /** `fromDue`: the figure was printed under an amount-due caption, not a gross one. */
  gross?: { value: Decimal; c: Candidate | undefined; derived?: boolean; fromDue?: boolean };
  net?: Decimal;
  tax?: Decimal;
  consistent: boolean;
}

/** Values of a target, best rank first; for totals the last printed wins among equals. */
function amountValues(scan: Scan, target: Target): { value: Decimal; c: Candidate }[] {
  const cands = scan.candidates
    .filter((c) => c.target === target)
    .sort((a, b) => b.rank - a.rank || b.line - a.line);
  const seen = new Set<string>();
  const out: { value: Decimal; c: Candidate }[] = [];
  for (const c of cands) {
    const v = dec(c.value).abs();
    if (seen.has(v.toFixed(2))) continue;
    seen.add(v.toFixed(2));
    out.push({ value: v, c });
  }
  return out;
}

function breakdown(scan: Scan): TaxBreakdown[] {
  const rows: TaxBreakdown[] = [];
  for (const c of scan.candidates) {
    if (c.target !== 'tax_total' || c.rate === undefined || c.base === undefined) continue;
    const base = dec(c.base).abs();
    const tax = dec(c.value).abs();
    // Only a row whose tax is its rate of its base: "19 % auf 1.000,00: 190,00".
    if (
      !eq(base.times(c.rate).dividedBy(100), tax) &&
      !base.times(c.rate).dividedBy(100).minus(tax).abs().lte(0.05)
    )
      continue;
    if (!rows.some((r) => r.rate === c.rate && r.net === base.toFixed(2)))
      rows.push({ rate: c.rate, net: base.toFixed(2), tax: tax.toFixed(2) });
  }
  return rows;
}

/**
 * Chooses net, tax and gross among all candidates so that net + tax = gross, the way a
 * clerk checks an invoice; a total that no other figure confirms is reported as unsure.
 */
function totals(r: Result, scan: Scan): void {
  const gross = amountValues(scan, 'gross_total');
  const due = amountValues(scan, 'amount_due');
  const prepaid = amountValues(scan, 'prepaid_total');
  const net = amountValues(scan, 'net_total');
  const taxCands = amountValues(scan, 'tax_total');
  const rows = breakdown(scan);
  const taxes = taxCands.map((t) => t.value);
  const nets = net.map((n) => n.value);
  // Several rates printed without their bases: the tax total is their sum.
  const perRate = new Map<string, Decimal>();
  for (const c of scan.candidates)
    if (c.target === 'tax_total' && c.rate !== undefined && !perRate.has(c.rate))
      perRate.set(c.rate, dec(c.value).abs());
  if (perRate.size >= 2) taxes.push([...perRate.values()].reduce((s, t) => s.plus(t), dec('0')));
  if (rows.length) {
    taxes.push(rows.reduce((s, b) => s.plus(b.tax), dec('0')));
    nets.push(rows.reduce((s, b) => s.plus(b.net), dec('0')));
  }
  const negative = scan.candidates.some(
    (c) => ['gross_total', 'amount_due', 'net_total'].includes(c.target) && c.value.startsWith('-'),
  );
  if (negative) r.set('document_type', 'Credit', 0.85);

  // Without a prepayment, the amount due is the gross ("Zahlbetrag" on a plain invoice).
  const grossOptions: { value: Decimal; c: Candidate; fromDue?: boolean }[] = [...gross];
  if (prepaid.length === 0)
    for (const d of due)
      grossOptions.push({ value: d.value, c: { ...d.c, rank: d.c.rank - 6 }, fromDue: true });

  let chosen: Totals = { consistent: false };
  search: for (const g of grossOptions)
    for (const n of nets)
      for (const t of taxes)
        if (eq(n.plus(t), g.value)) {
          chosen = {
            gross: { value: g.value, c: g.c, fromDue: g.fromDue },
            net: n,
            tax: t,
            consistent: true,
          };
          break search;
        }
  if (!chosen.consistent) {
    // Tax-free invoices: net = gross and no tax printed.
    const g = grossOptions[0];
    if (g && taxes.length === 0 && nets.some((n) => eq(n, g.value)))
      chosen = { gross: { value: g.value, c: g.c, fromDue: g.fromDue }, net: g.value, consistent: true };
  }
  if (!chosen.consistent) {
    const g = grossOptions[0];
    if (g) chosen = { gross: { value: g.value, c: g.c, fromDue: g.fromDue }, consistent: false };
    else if (nets.length === 1 && taxes.length === 1)
      chosen = { gross: { value: nets[0]!.plus(taxes[0]!), c: undefined, derived: true }, consistent: false };
    if (nets.length === 1) chosen.net = nets[0];
    if (taxes.length === 1) chosen.tax = taxes[0];
  }

  const cap = (checked: boolean) => capFor(r.source, chosen.gross?.c, checked);
  if (chosen.gross) {
    const g = chosen.gross;
    const rivals = grossOptions.filter(
      (o) => o.c && g.c && o.c.rank === g.c.rank && !eq(o.value, g.value),
    ).length;
    let confidence = chosen.consistent ? 0.95 : g.derived ? 0.6 : (g.c?.rank ?? 0) >= 10 ? 0.8 : 0.65;
    if (!chosen.consistent && rivals > 0) confidence = 0.45;
    r.set('gross_total', g.value.toFixed(2), Math.min(confidence, cap(chosen.consistent)), g.derived);
    if (chosen.net) r.set('net_total', chosen.net.toFixed(2), chosen.consistent ? 0.95 : 0.7);
    if (chosen.tax) r.set('tax_total', chosen.tax.toFixed(2), chosen.consistent ? 0.95 : 0.7);
    if (!chosen.consistent && nets.length > 0 && taxes.length > 0)
      r.warn('totals_inconsistent', 'no net and tax amounts printed add up to the total', 'gross_total');
    else if (confidence < 0.6)
      r.warn('low_confidence', 'several different totals are printed', 'gross_total');
  } else {
    if (nets.length === 1) r.set('net_total', nets[0]!.toFixed(2), 0.7);
    if (taxes.length === 1) r.set('tax_total', taxes[0]!.toFixed(2), 0.7);
  }
  if (rows.length) {
    const sums = chosen.consistent
      ? eq(
          rows.reduce((s, b) => s.plus(b.tax), dec('0')),
          chosen.tax ?? dec('-1'),
        )
      : false;
    r.set('taxes', rows, sums ? 0.9 : 0.7);
  }

  // Prepayments: gross − prepaid = due proves all three.
  const g = chosen.gross?.value;
  if (prepaid.length) {
    const p = prepaid.find((p) => g && due.some((d) => eq(g.minus(p.value), d.value)));
    const d = p && g ? due.find((d) => eq(g.minus(p.value), d.value)) : undefined;
    if (p && d) {
      r.set('prepaid_total', p.value.toFixed(2), Math.min(0.95, cap(true)));
      r.set('amount_due', d.value.toFixed(2), Math.min(0.95, cap(true)));
    } else {
      r.set('prepaid_total', prepaid[0]!.value.toFixed(2), 0.6);
      if (due[0]) r.set('amount_due', due[0].value.toFixed(2), 0.6);
      if (g && due[0])
        r.warn('totals_inconsistent', 'total less prepayment is not the amount due', 'amount_due');
    }
  } else if (due[0]) {
    // Sure only when the due's own caption printed it and a gross under a caption of its own
    // confirms it. A due caption whose figure is the only total ("Total due", "Te betalen")
    // served as the gross: taken over from the gross, it is wrong wherever a balance or a
    // deposit row was missed. Two different figures under due captions: one is a guess.
    const confirmed = g && eq(due[0].value, g) && chosen.consistent && !chosen.gross?.fromDue;
    r.set(
      'amount_due',
      due[0].value.toFixed(2),
      confirmed && due.length === 1 ? Math.min(0.9, cap(true)) : 0.6,
    );
  }
}

function currency(r: Result, lines: Line[]): void {
  const counts = new Map<string, number>();
  for (const line of lines)
    for (const a of findAmounts(line.text))
      if (a.currency) counts.set(a.currency, (counts.get(a.currency) ?? 0) + 1);
  for (const line of lines)
    for (const m of line.text.matchAll(/\b(EUR|USD|GBP|CHF)\b/g))
      counts.set(m[1]!, (counts.get(m[1]!) ?? 0) + 1);
  const sorted = [...counts.entries()].sort((a, b) => b[1] - a[1]);
  if (!sorted[0]) return;
  r.set('currency', sorted[0][0], sorted.length === 1 ? 0.9 : 0.6);
}

const CREDIT_TITLE =
  /^(?:gutschrift|credit\s?note|credit\s?memo|avoir|facture\s?d'avoir|stornorechnung|rechnungskorrektur\s?\(gutschrift\)|creditnota|creditfactuur)(?![\p{L}])/iu;
// "Handelsrechnung", "Beitragsrechnung" are invoices too; "Rechnungskorrektur" is not a title of one.
const INVOICE_TITLE = /^(?:\p{L}*rechnung|invoice|tax\s?invoice|facture|factuur)(?![\p{L}])/iu;

/**
 * "Buchungshilfe - KEINE Rechnung Nr. 471102 vom 13.11.2019": a number and its date named
 * inside a headline after other words. Not after "zu", "for", "de" …: a credit note's headline
 * names the invoice it corrects.
 */
const DATED_NUMBER =
  /(?<![\p{L}])(?<!(?:zu|zur|f[üu]r|for|to|on|against|auf|de|op|bij|betr\.?|ref\.?)\s)(?:\p{L}*rechnung|invoice|facture|factuur)\s+(?:nr\.?|no\.?|n°|#|number|nummer|num[ée]ro)\s*:?\s*(\S*\d\S*)\s+(?:vom|von|v\.|dated|of|from|du|van)\s+(.+)$/iu;

/** The issuer named after a title: "Rechnung des Versicherers", "Invoice of the seller". */
const ISSUER =
  /^\s*(?:des|der|of\s+the|du|de\s+la|van\s+de)\s+\p{L}+(?=\s+(?:nr\.?|no\.?|n°|#|number|nummer|num[ée]ro)(?![\p{L}]))/iu;

/** The height most lines of the document are set in. */
const bodyHeight = (lines: Line[]): number =>
  [...lines.map((l) => l.h)].sort((a, b) => a - b)[Math.floor(lines.length / 2)] ?? 0;

function headlineNumber(scan: Scan, line: Line, text: string, confidence: number, lang: Lang): void {
  const m = DATED_NUMBER.exec(text);
  const d = m ? findDates(m[2]!, lang)[0] : undefined;
  if (!m || !d || d.index !== 0 || findDates(m[1]!, lang).length) return;
  const at = { how: 'inline' as const, line: line.index, page: line.page, ocr: confidence };
  scan.candidates.push({ target: 'date', value: d.value, sure: d.sure, rank: 8, ...at });
  scan.candidates.push({
    target: 'invoice_number',
    value: m[1]!.replace(/[.,;:]+$/, ''),
    sure: true,
    rank: 7,
    ...at,
  });
}

function documentType(r: Result, lines: Line[], scan: Scan, lang: Lang): void {
  let credit = false;
  let invoice = false;
  const body = bodyHeight(lines);
  for (const line of lines) {
    if (line.y > line.pageHeight * 0.6 && line.page === 1) continue;
    for (const s of line.segments) {
      if (s.text.length > 80) continue;
      if (line.h > body * 1.15 && !INVOICE_TITLE.test(s.text) && !CREDIT_TITLE.test(s.text))
        headlineNumber(scan, line, s.text, s.confidence, lang);
      if (s.text.length > 60) continue;
      const title = CREDIT_TITLE.test(s.text)
        ? CREDIT_TITLE
        : INVOICE_TITLE.test(s.text)
          ? INVOICE_TITLE
          : undefined;
      if (title) {
        if (title === CREDIT_TITLE) credit = true;
        else invoice = true;
        // "Rechnung RE-2026-0042" as a title names the number, also after its issuer
        // ("Rechnung des Versicherers Nr. …").
        const own = s.text
          .replace(title, '')
          .replace(ISSUER, '')
          .replace(/^\s*(?:nr\.?|no\.?|n°|#|number|nummer|num[ée]ro)?\s*:?\s*/i, '');
        // "Handelsrechnung Nr. | 471102 vom 05.03.2018": OCR set the number apart from its title.
        const at = line.segments.indexOf(s);
        const next = line.segments[at + 1];
        // A number with its date may be split further ("17794 du 14 | juillet 2021"): then the cells together.
        const cells = next?.text.match(/^\S+\s+(?:vom|von|v\.|dated|of|from|du|van)(?:\s|$)/iu)
          ? line.segments
              .slice(at + 1, at + 4)
              .map((c) => c.text)
              .join(' ')
          : next?.text;
        const rest =
          own === '' && cells && /\s(?:nr\.?|no\.?|n°|#|number|nummer|num[ée]ro)\s*:?$/iu.test(s.text)
            ? cells
            : own;
        const token = rest.split(/\s+/)[0] ?? '';
        let after = rest.slice(token.length).trim();
        // A title that ends in "vom" goes on with its date on the next line.
        const below = lines[lines.indexOf(line) + 1];
        if (
          /^(?:vom|von|v\.|dated|of|from|du|van)$/iu.test(after) &&
          below?.page === line.page &&
          below.y - line.y < line.h * 2
        )
          after = `${after} ${below.segments[0]!.text}`;
        // The title's number stands alone or is followed by its date ("Invoice 2026/17 dated …").
        const dated = /^(?:vom|von|v\.|dated|of|from|du|van)\s+(.+)$/iu.exec(after);
        const id = (after === '' || dated) && /\d/.test(token) && findDates(token, lang).length === 0;
        const d = id && dated ? findDates(dated[1]!, lang)[0] : undefined;
        if (d && d.index === 0)
          scan.candidates.push({
            target: 'date',
            value: d.value,
            sure: d.sure,
            rank: 8,
            how: 'inline',
            line: line.index,
            page: line.page,
            ocr: s.confidence,
          });
        if (id)
          scan.candidates.push({
            target: 'invoice_number',
            value: token.replace(/[.,;:]+$/, ''),
            sure: true,
            rank: 7,
            how: 'inline',
            line: line.index,
            page: line.page,
            ocr: s.confidence,
          });
      }
    }
  }
  if (credit) r.set('document_type', 'Credit', 0.9);
  else if (invoice && r.fields.document_type === undefined) r.set('document_type', 'Invoice', 0.85);
}

/** A date near the top of the first page that no label claims: "Berlin, 6. Dezember 2026". */
function unlabelledDate(scan: Scan, lines: Line[], lang: Lang): void {
  if (scan.candidates.some((c) => c.target === 'date')) return;
  const found: (Candidate & { right: boolean })[] = [];
  for (const line of lines) {
    if (line.page !== 1 || line.y > line.pageHeight * 0.45) continue;
    for (const s of line.segments) {
      if (scan.used.has(s)) continue;
      const dates = findDates(s.text, lang);
      // A letter's date stands alone or after its place ("Berlin, den 6. Dezember 2026"); a
      // date inside a sentence ("… bis zum 04.03.2014 berücksichtigt") is about something else.
      const words = dates.reduce((t, d) => t.replace(s.text.slice(d.index, d.end), ''), s.text);
      if (words.replace(/[\s,.:]/g, '').length > 24) continue;
      for (const d of dates)
        found.push({
          target: 'date',
          value: d.value,
          sure: d.sure,
          rank: 2,
          how: 'scan',
          line: line.index,
          page: 1,
          ocr: s.confidence,
          right: s.x > line.pageWidth * 0.5,
        });
    }
  }
  // One date, or one in the right half where a letter's date block stands (DIN 5008).
  for (const some of [found, found.filter((f) => f.right)])
    if (new Set(some.map((f) => f.value)).size === 1) {
      const { right: _right, ...date } = some[0]!;
      scan.candidates.push(date);
      return;
    }
}

/**
 * Reads invoice fields from positioned words (a PDF's text layer or OCR) the way a person
 * reads a page: lines and cells, ranked labels in German, English and French, the value on
 * the label's row or in the cell below it, and checks that choose between candidates and
 * decide how sure each value is. Pure.
 */
export function fieldsFromLayout(pages: PageWords[], source: Source): ExtractionOutcome {
  const r = new Result(source);
  const lines = toLines(pages);
  const lang = detectLang(lines.map((l) => l.text).join('\n'));
  const scan = scanLabels(lines, lang);

  documentType(r, lines, scan, lang);
  unlabelledDate(scan, lines, lang);
  const number = simpleField(r, scan, 'invoice_number', 'invoice_number', 0.9);
  const date = of(scan, 'date');
  const issue = simpleField(r, scan, 'date', 'date', 0.9);
  if (issue && issue.rank < 5) {
    r.set('date', issue.value, Math.min(0.55, r.provenance.date?.confidence ?? 1));
    r.warn('low_confidence', 'the invoice date is not labelled', 'date');
  }
  void date;
  void number;
  simpleField(r, scan, 'due_date', 'due_date', 0.85);
  simpleField(r, scan, 'delivery_date', 'delivery_date', 0.85);
  const period = of(scan, 'service_period')[0];
  if (period?.value2) {
    const c = Math.min(period.sure ? 0.85 : 0.6, capFor(source, period, false));
    r.set('service_period_start', period.value, c);
    r.set('service_period_end', period.value2, c);
  }
  totals(r, scan);
  currency(r, lines);
  // Line items from a table whose every row adds up (line-items.domain.ts).
  const table = lineItemsFromLines(lines, source, r.fields);
  if (table.lines) r.set('line_items', table.lines, table.confidence!);
  else if (table.refused)
    r.warn('line_items_unchecked', `line items not read: ${table.refused}`, 'line_items');

  const iban = simpleField(r, scan, 'iban', 'iban', 0.95, true);
  const bic = simpleField(r, scan, 'bic', 'bic', 0.85);
  if (iban && bic && bic.value.slice(4, 6) === iban.value.slice(0, 2) && r.provenance.bic)
    r.provenance.bic.confidence = Math.max(
      r.provenance.bic.confidence,
      Math.min(0.9, capFor(source, bic, true)),
    );
  simpleField(r, scan, 'supplier_vat_id', 'supplier_vat_id', 0.9);
  simpleField(r, scan, 'supplier_tax_number', 'supplier_tax_number', 0.8);
  simpleField(r, scan, 'payment_reference', 'payment_reference', 0.6);
  simpleField(r, scan, 'buyer_reference', 'buyer_reference', 0.7);
  supplierParty(r, lines, scan);
  if (r.fields.supplier_vat_id && !r.fields.supplier_country) {
    const cc = r.fields.supplier_vat_id.slice(0, 2);
    r.set('supplier_country', cc === 'EL' ? 'GR' : cc, 0.8, true);
  }

  for (const [field, p] of Object.entries(r.provenance))
    if (p && p.confidence < 0.6) r.warn('low_confidence', `${field} was read with low confidence`, field);
  return {
    fields: r.fields,
    provenance: r.provenance,
    warnings: r.warnings,
    method: source,
    pages: pages.length,
  };
}

export type { Result };
