import type { PdfDocument } from './types.js';

/**
 * Labels and number/date formatting for the printed document. Amounts arrive as exact decimal
 * strings; Intl.NumberFormat formats such strings as decimals (ES2023), so nothing passes
 * through a binary float on its way to the page.
 */
export type Lang = 'en' | 'de';

const LABELS = {
  en: {
    draft: 'Draft',
    invoiceNo: 'Invoice no.',
    creditNo: 'Credit note no.',
    offerNo: 'Offer no.',
    date: 'Date',
    dueDate: 'Due date',
    validUntil: 'Valid until',
    servicePeriod: 'Service period',
    serviceDate: 'Service date',
    serviceDateIsInvoiceDate: 'The date of supply is the invoice date.',
    buyerReference: 'Your reference',
    customerVatId: 'Your VAT ID',
    pos: 'Pos.',
    description: 'Description',
    quantity: 'Quantity',
    unitPrice: 'Unit price',
    discount: 'Disc.',
    tax: 'VAT',
    total: 'Amount',
    netTotal: 'Total net',
    vatOn: (rate: string, base: string) => `VAT ${rate} on ${base}`,
    grossTotal: 'Total gross',
    less: 'Less',
    deductionDetail: (net: string, tax: string) => `net ${net}, VAT ${tax}`,
    paid: 'Already paid',
    amountDue: 'Amount due',
    page: (x: number, y: number) => `Page ${x} of ${y}`,
    vatId: 'VAT ID',
    taxNumber: 'Tax no.',
    bank: 'Bank',
    continued: 'continued',
  },
  de: {
    draft: 'Entwurf',
    invoiceNo: 'Rechnungsnr.',
    creditNo: 'Gutschriftsnr.',
    offerNo: 'Angebotsnr.',
    date: 'Datum',
    dueDate: 'Fällig am',
    validUntil: 'Gültig bis',
    servicePeriod: 'Leistungszeitraum',
    serviceDate: 'Leistungsdatum',
    serviceDateIsInvoiceDate: 'Leistungsdatum entspricht Rechnungsdatum.',
    buyerReference: 'Ihre Referenz',
    customerVatId: 'Ihre USt-IdNr.',
    pos: 'Pos.',
    description: 'Beschreibung',
    quantity: 'Menge',
    unitPrice: 'Einzelpreis',
    discount: 'Rabatt',
    tax: 'USt.',
    total: 'Betrag',
    netTotal: 'Summe netto',
    vatOn: (rate: string, base: string) => `USt. ${rate} auf ${base}`,
    grossTotal: 'Gesamtbetrag',
    less: 'abzüglich',
    deductionDetail: (net: string, tax: string) => `netto ${net}, USt. ${tax}`,
    paid: 'Bereits bezahlt',
    amountDue: 'Zahlbetrag',
    page: (x: number, y: number) => `Seite ${x} von ${y}`,
    vatId: 'USt-IdNr.',
    taxNumber: 'Steuernr.',
    bank: 'Bank',
    continued: 'Fortsetzung',
  },
};

export type Labels = (typeof LABELS)['en'];

/** Printed next to a 0 % rate so the reader sees why no VAT is charged (e.g. §13b UStG). */
const EXEMPTION_REASONS: Record<Lang, Record<string, string>> = {
  en: {
    E: 'Exempt from VAT.',
    AE: 'Reverse charge: VAT is owed by the recipient.',
    K: 'VAT-exempt intra-community supply.',
    G: 'VAT-exempt export outside the EU.',
    O: 'Not subject to VAT.',
  },
  de: {
    E: 'Steuerfreie Leistung.',
    AE: 'Steuerschuldnerschaft des Leistungsempfängers (Reverse Charge).',
    K: 'Steuerfreie innergemeinschaftliche Lieferung.',
    G: 'Steuerfreie Ausfuhrlieferung.',
    O: 'Nicht steuerbar.',
  },
};

export function defaultExemptionReason(lang: Lang, category: string): string | null {
  return EXEMPTION_REASONS[lang][category] ?? null;
}

const LOCALE: Record<Lang, string> = { en: 'en-GB', de: 'de-DE' };

export interface Formatter {
  lang: Lang;
  labels: Labels;
  money(value: string): string;
  /** Unit prices may carry more than two decimals (0.125 per piece); those are kept. */
  price(value: string): string;
  quantity(value: string): string;
  percent(value: string): string;
  date(value: string | null | undefined): string;
}

/** Intl formatters are costly to build; a document renders hundreds of amounts. */
const cache = new Map<string, Formatter>();

export function formatterFor(doc: Pick<PdfDocument, 'language' | 'currency'>): Formatter {
  const lang: Lang = doc.language === 'de' ? 'de' : 'en';
  const key = `${lang}:${doc.currency}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const locale = LOCALE[lang];
  const money = new Intl.NumberFormat(locale, { style: 'currency', currency: doc.currency });
  const price = new Intl.NumberFormat(locale, {
    style: 'currency',
    currency: doc.currency,
    maximumFractionDigits: Math.max(4, money.resolvedOptions().maximumFractionDigits ?? 2),
  });
  const plain = new Intl.NumberFormat(locale, { maximumFractionDigits: 6 });
  const dates = new Intl.DateTimeFormat(locale, {
    timeZone: 'UTC',
    day: lang === 'de' ? '2-digit' : 'numeric',
    month: lang === 'de' ? '2-digit' : 'short',
    year: 'numeric',
  });
  const formatter: Formatter = {
    lang,
    labels: LABELS[lang],
    money: (value) => money.format(decimal(value)),
    price: (value) => price.format(decimal(value)),
    quantity: (value) => plain.format(decimal(value)),
    // German typesetting puts a (narrow) space before the percent sign.
    percent: (value) => plain.format(decimal(value)) + (lang === 'de' ? '\u00a0%' : '%'),
    // German dates are always DD.MM.YYYY (DIN 5008), four-digit years included.
    date: (value) => (value ? (lang === 'de' ? germanDate(value) : formatDate(dates, value)) : ''),
  };
  cache.set(key, formatter);
  return formatter;
}

function decimal(value: string): Intl.StringNumericLiteral {
  const trimmed = value.trim();
  if (!/^[+-]?\d+(\.\d+)?$/.test(trimmed)) throw new Error(`not a decimal amount: "${value}"`);
  return trimmed as Intl.StringNumericLiteral;
}

function germanDate(value: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(value);
  return m ? `${m[3]}.${m[2]}.${m[1]}` : value;
}

function formatDate(dates: Intl.DateTimeFormat, value: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(value);
  if (!m) return value;
  // setUTCFullYear, not Date.UTC: that one reads the years 0–99 as 1900–1999.
  const d = new Date(0);
  d.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return dates.format(d);
}

/** Sign flip on the string itself: "-12.50" <-> "12.50"; no arithmetic. */
export function negate(value: string): string {
  const v = value.trim();
  if (isZero(v)) return v.replace(/^[+-]/, '');
  if (v.startsWith('-')) return v.slice(1);
  return '-' + v.replace(/^\+/, '');
}

export function isZero(value: string | null | undefined): boolean {
  return value == null || /^[+-]?0*(\.0*)?$/.test(value.trim());
}

export function isNegative(value: string): boolean {
  return value.trim().startsWith('-') && !isZero(value);
}
