import { allocate, centsToString, Dec, taxCents } from '../../shared/money.js';

/** An exact amount of cents rounded to whole cents, half away from zero. */
const whole = (cents: Dec): number => cents.toDecimalPlaces(0).toNumber();

/**
 * The figures of the German VAT return (Umsatzsteuer-Voranmeldung) by Kennzahl, from the
 * documents of a period, as pure functions. Amounts are cents. Which document goes to which
 * Kennzahl is in the tables below; the service reads the documents.
 */

export type DocKind = 'outgoing_invoice' | 'incoming_invoice' | 'payment';

export interface DocRef {
  kind: DocKind;
  id: number;
  number: string | null;
}

/** One tax rate of an outgoing document (or the share of it a payment pays, under `cash`). */
export interface OutputEntry {
  doc: DocRef;
  rate: string;
  category: string | null;
  net: number;
  tax: number;
}

/** One booking of an incoming invoice: gross at a rate; reverse charge when received from the EU. */
export interface InputEntry {
  doc: DocRef;
  gross: number;
  rate: string | null;
  reverseCharge: boolean;
}

export interface VatFigure {
  kennzahl: string;
  description: string;
  base: number | null;
  tax: number | null;
  documents: DocRef[];
}

export const KENNZAHLEN: Record<string, string> = {
  '81': 'Taxable supplies at 19 %',
  '86': 'Taxable supplies at 7 %',
  '35': 'Taxable supplies at other rates',
  '41': 'Tax-free intra-EU supplies to buyers with a VAT id',
  '43': 'Tax-free exports (with input tax deduction)',
  '48': 'Tax-free supplies without input tax deduction',
  '21': 'Services taxable in another EU state, the recipient owes the VAT (§ 18b)',
  '45': 'Other supplies not taxable in Germany',
  '46': 'Services received from EU businesses, recipient owes the VAT (§ 13b)',
  '66': 'Input tax from invoices of other businesses',
  '67': 'Input tax of services received under § 13b',
  '83': 'VAT due (negative: refund)',
};

/** The order of the form (object keys that look like numbers would sort numerically). */
const FORM_ORDER = ['81', '86', '35', '41', '43', '48', '21', '45', '46', '66', '67', '83'];

/** Where an output entry goes: by its VAT category at 0 %, by its rate otherwise. */
const ZERO_RATED: Record<string, string> = { K: '41', G: '43', AE: '21', O: '45', E: '48', Z: '48' };
const BY_RATE: Record<string, string> = { '19': '81', '7': '86' };

export function outputKennzahl(e: Pick<OutputEntry, 'rate' | 'category'>): string {
  if (Number(e.rate) === 0) return ZERO_RATED[e.category ?? 'E'] ?? '48';
  return BY_RATE[String(Number(e.rate))] ?? '35';
}

/** The input tax in a gross amount at a rate (exact, rounded half away from zero). */
export const taxInGross = (gross: number, rate: string | null): number =>
  rate === null || Number(rate) === 0 ? 0 : whole(new Dec(gross).times(rate).div(new Dec(100).plus(rate)));

/** Decimal string of money ("123.45", "-5") as cents, exactly. */
export function centsOf(decimal: string): number {
  const m = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(decimal.trim());
  if (!m) throw new RangeError(`not an amount: ${decimal}`);
  const cents = Number(m[2]) * 100 + Number((m[3] ?? '').padEnd(2, '0'));
  return m[1] === '-' ? -cents : cents;
}

/**
 * The rate of a deduction, which the frozen document keeps as net and tax only: the whole
 * percentage the tax implies when it gives exactly that tax, else the first of the document's
 * own rates that does (so a deposit at 5.5 % comes off 5.5 %, not 6 %), else the implied one.
 */
export function deductionRate(net: number, tax: number, rates: readonly string[]): string {
  if (net === 0) return '0';
  const implied = String(Math.round((tax * 100) / net));
  if (taxCents(net, implied) === tax) return implied;
  return rates.find((r) => taxCents(net, r) === tax) ?? implied;
}

/**
 * The tax entries of a booked document (its frozen `document`): its rates, less what a final
 * invoice deducts for earlier deposits (at the rate their tax implies), which were taxed then.
 */
export function documentEntries(
  taxes: DocumentTax[],
  deductions: { net: string; tax: string }[],
): Omit<OutputEntry, 'doc'>[] {
  const out = taxes.map((t) => ({
    rate: t.rate,
    category: t.category ?? null,
    net: centsOf(t.net),
    tax: centsOf(t.tax),
  }));
  const rates = taxes.map((t) => t.rate);
  for (const d of deductions) {
    const net = centsOf(d.net);
    const tax = centsOf(d.tax);
    out.push({ rate: deductionRate(net, tax, rates), category: null, net: -net, tax: -tax });
  }
  return out;
}

/** A tax entry of a booked document as its frozen `document` keeps it: decimal strings. */
export interface DocumentTax {
  rate: string;
  net: string;
  tax: string;
  category?: string | null;
}

/** What the export and the reports read of a booked outgoing document's amounts. */
export interface BookedAmounts {
  taxes: DocumentTax[];
  /** Earlier deposits a final invoice deducts (net and tax, positive). */
  deductions: { net: string; tax: string }[];
  /** What the buyer owes: the gross after a final invoice's deductions. */
  amountDue: string;
}

/** The columns of a booked outgoing document those amounts come from. */
export interface BookedSource {
  document: string | null;
  /** JSON of the per-rate totals of the document's own lines, in cents. */
  lines_taxes: string | null;
  tax_exemption_category: string | null;
}

const json = <T>(text: string | null): T | null => {
  try {
    return text ? (JSON.parse(text) as T) : null;
  } catch {
    return null;
  }
};

/**
 * The amounts of a booked outgoing document: its frozen document's. An invoice made elsewhere
 * (POST /outgoing-invoices/external) keeps no document, only its lines and their totals per
 * rate: those are its amounts, written as a document would have them (a 0 % entry in the
 * invoice's VAT category), so it is booked, returned and aged like any other. Without either
 * (no lines) it has nothing to book.
 */
export function bookedAmounts(row: BookedSource): BookedAmounts {
  const doc = json<{
    taxes?: DocumentTax[];
    deductions?: { net: string; tax: string }[];
    amount_due?: string;
    gross_total?: string;
  }>(row.document);
  if (doc)
    return {
      taxes: doc.taxes ?? [],
      deductions: doc.deductions ?? [],
      amountDue: doc.amount_due ?? doc.gross_total ?? '0',
    };
  const lines = json<{ rate: string; net: number; tax: number }[]>(row.lines_taxes) ?? [];
  const category = row.tax_exemption_category;
  return {
    taxes: lines.map((t) =>
      Number(t.rate) === 0 && category
        ? { rate: t.rate, net: centsToString(t.net), tax: centsToString(t.tax), category }
        : { rate: t.rate, net: centsToString(t.net), tax: centsToString(t.tax) },
    ),
    deductions: [],
    amountDue: centsToString(lines.reduce((s, t) => s + t.net + t.tax, 0)),
  };
}

/** The standard rate a recipient owes on a reverse-charge service received (§ 13b). */
export const REVERSE_CHARGE_RATE = '19';

/**
 * A payment's share of each tax rate of the document it pays (cash method): the payment is
 * split in proportion to the rates' gross amounts, each share into net and tax by the rate's
 * own proportion; the parts add up to the payment exactly.
 */
export function paidShares(
  payment: { doc: DocRef; amount: number },
  entries: Omit<OutputEntry, 'doc'>[],
): OutputEntry[] {
  const grossOf = entries.map((e) => e.net + e.tax);
  const shares = allocate(payment.amount, grossOf);
  return entries.map((e, i) => {
    const share = shares[i]!;
    const tax = grossOf[i] === 0 ? 0 : whole(new Dec(share).times(e.tax).div(grossOf[i]!));
    return { doc: payment.doc, rate: e.rate, category: e.category, net: share - tax, tax };
  });
}

/** The Kennzahlen of a period, in the order of the form; empty ones left out, 83 always. */
export function vatFigures(output: OutputEntry[], input: InputEntry[]): VatFigure[] {
  const figures = new Map<string, VatFigure>();
  const add = (kz: string, base: number, tax: number | null, doc: DocRef) => {
    let f = figures.get(kz);
    if (!f) {
      f = { kennzahl: kz, description: KENNZAHLEN[kz]!, base: 0, tax: null, documents: [] };
      figures.set(kz, f);
    }
    f.base = (f.base ?? 0) + base;
    if (tax !== null) f.tax = (f.tax ?? 0) + tax;
    if (!f.documents.some((d) => d.kind === doc.kind && d.id === doc.id)) f.documents.push(doc);
  };
  for (const e of output) {
    const kz = outputKennzahl(e);
    add(kz, e.net, kz === '81' || kz === '86' || kz === '35' ? e.tax : null, e.doc);
  }
  for (const e of input) {
    if (e.reverseCharge) {
      const tax = whole(new Dec(e.gross).times(REVERSE_CHARGE_RATE).div(100));
      add('46', e.gross, tax, e.doc);
      add('67', 0, tax, e.doc);
    } else {
      const tax = taxInGross(e.gross, e.rate);
      if (tax !== 0) add('66', 0, tax, e.doc);
    }
  }
  for (const kz of ['66', '67']) {
    const f = figures.get(kz);
    if (f) f.base = null;
  }
  const taxOf = (kz: string) => figures.get(kz)?.tax ?? 0;
  const due = taxOf('81') + taxOf('86') + taxOf('35') + taxOf('46') - taxOf('66') - taxOf('67');
  return [
    ...[...figures.values()].sort((a, b) => FORM_ORDER.indexOf(a.kennzahl) - FORM_ORDER.indexOf(b.kennzahl)),
    { kennzahl: '83', description: KENNZAHLEN['83']!, base: null, tax: due, documents: [] },
  ];
}

/** A period `YYYY-MM` or `YYYY-Qn` as its first and last day. */
export function periodRange(period: string): { from: string; to: string } {
  const year = Number(period.slice(0, 4));
  const q = /^\d{4}-Q([1-4])$/.exec(period);
  const first = q ? (Number(q[1]) - 1) * 3 + 1 : Number(period.slice(5, 7));
  const last = q ? first + 2 : first;
  const end = new Date(Date.UTC(year, last, 0)).toISOString().slice(0, 10);
  return { from: `${year}-${String(first).padStart(2, '0')}-01`, to: end };
}

/** EU member states by ISO code (Greece's VAT ids say EL). */
export const EU_STATES = new Set(
  'AT BE BG CY CZ DE DK EE EL ES FI FR GR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK'.split(' '),
);

/**
 * The EU state whose VAT a supply to a consumer there is charged in (One-Stop-Shop), or null
 * for a supply taxed as the German return has it: a buyer in another EU state without a VAT
 * id, charged at a rate above 0 that is not a German one (19 or 7 %). A German rate means the
 * company stays under the EU threshold and taxes the supply at home; Cyprus' 19 % is read so.
 */
export function ossCountry(
  rate: string,
  buyer: { country_code?: string | null; vat_id?: string | null } | null,
): string | null {
  const c = (buyer?.country_code ?? '').toUpperCase();
  if (c === '' || c === 'DE' || !EU_STATES.has(c) || (buyer?.vat_id ?? '') !== '') return null;
  const r = Number(rate);
  return r > 0 && r !== 19 && r !== 7 ? c : null;
}

export interface OssFigure {
  country: string;
  base: number;
  tax: number;
  rates: { rate: number; base: number; tax: number; documents: DocRef[] }[];
}

/** The OSS return's figures: by country (code order), each by rate (ascending). */
export function ossFigures(entries: (OutputEntry & { country: string })[]): OssFigure[] {
  const byCountry = new Map<string, OssFigure>();
  for (const e of entries) {
    let c = byCountry.get(e.country);
    if (!c) {
      c = { country: e.country, base: 0, tax: 0, rates: [] };
      byCountry.set(e.country, c);
    }
    let r = c.rates.find((x) => x.rate === Number(e.rate));
    if (!r) {
      r = { rate: Number(e.rate), base: 0, tax: 0, documents: [] };
      c.rates.push(r);
    }
    r.base += e.net;
    r.tax += e.tax;
    c.base += e.net;
    c.tax += e.tax;
    if (!r.documents.some((d) => d.kind === e.doc.kind && d.id === e.doc.id)) r.documents.push(e.doc);
  }
  return [...byCountry.values()]
    .sort((a, b) => a.country.localeCompare(b.country))
    .map((c) => ({ ...c, rates: c.rates.sort((a, b) => a.rate - b.rate) }));
}

/** A supplier in another EU state: by its country, else by its VAT id's prefix. */
export function fromOtherEuState(country: string | null, vatId: string | null): boolean {
  const c = (country ?? vatId?.slice(0, 2) ?? '').toUpperCase();
  return c !== '' && c !== 'DE' && EU_STATES.has(c);
}
