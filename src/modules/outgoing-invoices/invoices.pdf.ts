import { creditorReference } from '../../shared/creditor-reference.js';
import { isValidBic, isValidIban, normalizeIdentifier } from '../../shared/identifiers.js';
import { centsToString, type Totals } from '../../shared/money.js';
import { formatterFor } from '../../shared/pdf/format.js';
import type { PdfDocument, PdfGiroCode, PdfParty, PdfTaxEntry } from '../../shared/pdf/types.js';
import { type AccountProfile, profilePaymentTerms } from '../account/profile.public.js';
import type { ClientRow } from './invoices.read-model.js';
import type { StoredLine } from './line-items.js';

/**
 * Pure mapping of offers and outgoing invoices to what the PDF renderer prints. Amounts
 * become exact decimal strings; nothing here reads the database.
 */

export type PdfKind = PdfDocument['kind'];
type Lang = 'en' | 'de';

const TITLES: Record<PdfKind, Record<Lang, string>> = {
  invoice: { en: 'Invoice', de: 'Rechnung' },
  credit: { en: 'Credit note', de: 'Gutschrift' },
  offer: { en: 'Offer', de: 'Angebot' },
  deposit: { en: 'Deposit invoice', de: 'Abschlagsrechnung' },
  partial: { en: 'Partial invoice', de: 'Teilrechnung' },
  final: { en: 'Final invoice', de: 'Schlussrechnung' },
};

export const pdfKind = (type: string): PdfKind =>
  (['credit', 'deposit', 'partial', 'final'] as const).find((k) => k === type) ?? 'invoice';

/** Countries whose documents are German unless the client asks for another language. */
const GERMAN_SPEAKING = new Set(['DE', 'AT', 'CH', 'LI']);

/**
 * The language of a document: the client's (`de` German, any other English); a client
 * without one gets the language of the seller's country.
 */
export const pdfLanguage = (language: string | null | undefined, sellerCountry?: string | null): Lang => {
  if (language) return language === 'de' ? 'de' : 'en';
  return GERMAN_SPEAKING.has((sellerCountry ?? '').toUpperCase()) ? 'de' : 'en';
};

/** What a document prints of its client. */
export type BuyerRow = Pick<
  ClientRow,
  | 'name'
  | 'street'
  | 'zip'
  | 'city'
  | 'country_code'
  | 'vat_id'
  | 'tax_number'
  | 'email'
  | 'phone'
  | 'language'
>;

/** "Dr. Mira Schulz" from a contact's name parts. */
export const contactName = (c: { title: string | null; first_name: string | null; last_name: string }) =>
  [c.title, c.first_name, c.last_name].filter((x) => x && x.trim() !== '').join(' ');

export function sellerParty(p: AccountProfile): PdfDocument['seller'] {
  return {
    name: p.name,
    street: p.street,
    zip: p.zip,
    city: p.city,
    country_code: p.country_code,
    vat_id: p.vat_id,
    tax_number: p.tax_number,
    email: p.email,
    phone: p.phone,
    attention: p.contact_name,
    iban: p.iban,
    bic: p.bic,
    bank_name: p.bank_name,
  };
}

export function buyerParty(c: BuyerRow | undefined, attention?: string | null): PdfParty {
  if (!c) return { name: '', attention: attention ?? null };
  return {
    name: c.name,
    attention: attention ?? null,
    street: c.street,
    zip: c.zip,
    city: c.city,
    country_code: c.country_code,
    vat_id: c.vat_id,
    tax_number: c.tax_number,
    email: c.email,
    phone: c.phone,
  };
}

export function pdfLines(items: readonly StoredLine[]): PdfDocument['lines'] {
  return items.map((i) => ({
    position: i.position,
    title: i.title,
    description: i.description,
    quantity: i.quantity,
    unit: i.unit,
    unit_price: centsToString(Number(i.unit_price)),
    tax_rate: i.tax_rate,
    discount: i.discount,
    net_total: centsToString(Number(i.net_total)),
  }));
}

export function pdfTotals(t: Totals) {
  return {
    taxes: t.taxes.map((x) => ({ rate: x.rate, net: centsToString(x.net), tax: centsToString(x.tax) })),
    net_total: centsToString(t.net),
    tax_total: centsToString(t.tax),
    gross_total: centsToString(t.gross),
  };
}

export function paymentTerms(
  kind: PdfKind,
  lang: Lang,
  d: { due_date: string | null; payment_term_days: number | null },
): string | null {
  if (kind === 'offer') return null;
  if (kind === 'credit') {
    return lang === 'de'
      ? 'Der Betrag wird mit offenen Rechnungen verrechnet oder erstattet.'
      : 'The amount will be set off against open invoices or refunded.';
  }
  if (!d.due_date) return null;
  const days = d.payment_term_days;
  const due = formatterFor({ language: lang, currency: 'EUR' }).date(d.due_date);
  if (lang === 'de') return `Zahlbar ohne Abzug bis ${due}${days ? ` (${days} Tage)` : ''}.`;
  return `Payable without deduction by ${due}${days ? ` (${days} days)` : ''}.`;
}

/** Largest amount an EPC QR code carries, in cents. */
const GIRO_MAX_CENTS = 99_999_999_999;

/**
 * The GiroCode of an invoice, or null where none can be paid with it: credit notes (the
 * seller pays), another currency than the euro (the code is for SEPA credit transfers), no
 * valid IBAN in the company profile, nothing due, or more than the code can carry. The
 * reference is the invoice number's ISO 11649 reference; a number with more than 21 letters
 * and digits goes as the text instead, and a draft (no number yet) names itself a draft.
 */
export function giroCode(
  kind: PdfKind,
  lang: Lang,
  inv: { invoice_number: string | null; currency: string; amount_due_cents: number },
  seller: Pick<AccountProfile, 'name' | 'iban' | 'bic'>,
): PdfGiroCode | null {
  if (kind === 'credit' || kind === 'offer' || inv.currency !== 'EUR') return null;
  if (inv.amount_due_cents <= 0 || inv.amount_due_cents > GIRO_MAX_CENTS) return null;
  if (!seller.iban || !isValidIban(seller.iban) || !seller.name.trim()) return null;
  const reference = inv.invoice_number ? creditorReference(inv.invoice_number) : null;
  return {
    name: seller.name.trim(),
    iban: normalizeIdentifier(seller.iban),
    bic: seller.bic && isValidBic(seller.bic) ? normalizeIdentifier(seller.bic) : null,
    amount: centsToString(inv.amount_due_cents),
    reference,
    text: reference
      ? null
      : (inv.invoice_number ?? `${TITLES[kind][lang]} (${lang === 'de' ? 'Entwurf' : 'draft'})`),
  };
}

/** What offers and invoices print alike. */
interface DocumentPdfInput {
  date: string | null;
  currency: string;
  title: string | null;
  intro_text: string | null;
  closing_text: string | null;
  items: readonly StoredLine[];
  /** What the document invoices (final invoices: after deductions). */
  totals: Totals;
  /** The contact person the document is addressed to. */
  attention?: string | null;
}

export interface InvoicePdfInput extends DocumentPdfInput {
  type: string;
  status: string;
  invoice_number: string | null;
  due_date: string | null;
  payment_term_days: number | null;
  service_period_start: string | null;
  service_period_end: string | null;
  /** Final invoices: the plan total before deductions. */
  plan_total: Totals | null;
  deductions: { type: string; invoice_number: string | null; totals: Totals }[];
  credited_invoice_number?: string | null;
  /** BT-10: the invoice's own, else the client's. */
  buyer_reference?: string | null;
  /** Set at booking when the supply date defaults to the invoice date. */
  service_date?: string | null;
  tax_exemption_category?: string | null;
  tax_exemption_reason_code?: string | null;
  tax_exemption_reason?: string | null;
}

/** VATEX codes (BT-121) a category implies when the invoice names none. */
export const DEFAULT_VATEX: Record<string, string> = {
  AE: 'VATEX-EU-AE',
  K: 'VATEX-EU-IC',
  G: 'VATEX-EU-G',
  O: 'VATEX-EU-O',
};

/**
 * Taxes of the document: a rate above 0 is standard (S); 0 % lines take the invoice's VAT
 * category and exemption reason (booking insists on them), with the category's VATEX code
 * when none is given.
 */
export function pdfTaxes(
  t: Totals,
  inv: Pick<InvoicePdfInput, 'tax_exemption_category' | 'tax_exemption_reason_code' | 'tax_exemption_reason'>,
): PdfDocument['taxes'] {
  const category = inv.tax_exemption_category as PdfTaxEntry['category'] | null | undefined;
  return pdfTotals(t).taxes.map((x) => {
    if (Number(x.rate) !== 0 || !category) return x;
    return {
      ...x,
      category,
      exemption_reason: inv.tax_exemption_reason ?? null,
      exemption_reason_code: inv.tax_exemption_reason_code ?? DEFAULT_VATEX[category] ?? null,
    };
  });
}

export function invoiceToPdf(
  inv: InvoicePdfInput,
  seller: AccountProfile,
  buyer: BuyerRow | undefined,
): PdfDocument {
  const kind = pdfKind(inv.type);
  const lang = pdfLanguage(buyer?.language, seller.country_code);
  const references: { label: string; value: string }[] = [];
  if (inv.credited_invoice_number) {
    references.push({
      label: lang === 'de' ? 'Zu Rechnung' : 'Credited invoice',
      value: inv.credited_invoice_number,
    });
  }
  if (inv.title) references.push({ label: lang === 'de' ? 'Betreff' : 'Subject', value: inv.title });
  const shown = inv.plan_total ?? inv.totals;
  return {
    kind,
    title: TITLES[kind][lang],
    number: inv.invoice_number,
    date: inv.date,
    due_date: inv.due_date,
    service_period_start: inv.service_period_start,
    service_period_end: inv.service_period_end,
    service_date: inv.service_date ?? null,
    service_date_is_invoice_date: Boolean(inv.service_date && inv.service_date === inv.date),
    currency: inv.currency,
    language: lang,
    seller: sellerParty(seller),
    buyer: buyerParty(buyer, inv.attention),
    references,
    // The account's texts (company profile) where the invoice has none of its own.
    intro_text: inv.intro_text ?? seller.invoice_intro_text,
    lines: pdfLines(inv.items),
    ...pdfTotals(shown),
    taxes: pdfTaxes(shown, inv),
    buyer_reference: inv.buyer_reference ?? null,
    deductions: inv.deductions.map((d) => ({
      title: `${TITLES[pdfKind(d.type)][lang]}${d.invoice_number ? ` ${d.invoice_number}` : ''}`,
      number: d.invoice_number,
      net: centsToString(d.totals.net),
      tax: centsToString(d.totals.tax),
      gross: centsToString(d.totals.gross),
    })),
    amount_due: centsToString(inv.totals.gross),
    payment_terms: profilePaymentTerms(seller, kind, lang, inv) ?? paymentTerms(kind, lang, inv),
    closing_text: inv.closing_text ?? seller.invoice_closing_text,
    logo: seller.logo ? { sha256: seller.logo.sha256, content_type: seller.logo.content_type } : null,
    giro_code: giroCode(
      kind,
      lang,
      { invoice_number: inv.invoice_number, currency: inv.currency, amount_due_cents: inv.totals.gross },
      seller,
    ),
    booked: inv.status === 'booked',
  };
}

export interface OfferPdfInput extends DocumentPdfInput {
  offer_number: string | null;
  valid_until: string | null;
}

export function offerToPdf(
  o: OfferPdfInput,
  seller: AccountProfile,
  buyer: BuyerRow | undefined,
): PdfDocument {
  const lang = pdfLanguage(buyer?.language, seller.country_code);
  const references: { label: string; value: string }[] = [];
  if (o.title) references.push({ label: lang === 'de' ? 'Betreff' : 'Subject', value: o.title });
  if (o.valid_until)
    references.push({
      label: lang === 'de' ? 'Gültig bis' : 'Valid until',
      value: formatterFor({ language: lang, currency: o.currency }).date(o.valid_until),
    });
  return {
    kind: 'offer',
    title: TITLES.offer[lang],
    number: o.offer_number,
    date: o.date,
    currency: o.currency,
    language: lang,
    seller: sellerParty(seller),
    buyer: buyerParty(buyer, o.attention),
    references,
    intro_text: o.intro_text,
    lines: pdfLines(o.items),
    ...pdfTotals(o.totals),
    amount_due: centsToString(o.totals.gross),
    payment_terms: null,
    closing_text: o.closing_text,
    booked: false,
  };
}
