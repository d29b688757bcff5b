import type { FieldError } from '../../shared/errors.js';
import { formatterFor } from '../../shared/pdf/format.js';
import type { PdfDocument } from '../../shared/pdf/types.js';

/**
 * The rules of sending a document by mail, pure: which attachments a client's e-invoice format
 * asks for and whether the document may go out in it, who receives it, the text of the
 * message, and what to do when the relay refuses.
 */

export type AttachmentKind = 'pdf' | 'cii' | 'ubl';

/**
 * What a format attaches, in order. `pdf_and_xrechnung` adds UBL, the syntax `GET …/xml`
 * serves by default. An unknown format (a row written by something newer) sends the PDF.
 */
export function attachmentsFor(format: string): AttachmentKind[] {
  switch (format) {
    case 'xrechnung_cii':
      return ['cii'];
    case 'xrechnung_ubl':
      return ['ubl'];
    case 'pdf_and_xrechnung':
      return ['pdf', 'ubl'];
    default:
      return ['pdf'];
  }
}

export const isXRechnung = (format: string) => attachmentsFor(format).some((k) => k !== 'pdf');

const blank = (v: string | null | undefined) => v === null || v === undefined || v.trim() === '';

/**
 * The gate before a document is queued: the rules of the chosen format the service can check
 * itself on the document as it was frozen at booking (booking already applied §14 UStG and the
 * EN 16931 mandatory fields, booking.rules.ts). XRechnung adds the German CIUS rules: a buyer
 * reference (BR-DE-15), the seller's contact (BR-DE-2, -5, -6, -7), both postal addresses'
 * city and post code (BR-DE-3, -4, -8, -9) and payment instructions (BR-DE-1). Every broken
 * rule is listed, its id first in the message. `doc` is null for an invoice that has no frozen
 * document (uploaded elsewhere): it has only its PDF, so it has no e-invoice to send.
 */
export function einvoiceGateErrors(doc: PdfDocument | null, format: string): FieldError[] {
  if (!isXRechnung(format)) return [];
  if (!doc)
    return [
      {
        field: 'einvoice_format',
        message: `${format}: an invoice uploaded from elsewhere has only its PDF, no XRechnung`,
      },
    ];
  const errors: FieldError[] = [];
  const need = (rule: string, field: string, value: string | null | undefined, what: string) => {
    if (blank(value)) errors.push({ field, message: `${rule}: ${what}` });
  };
  need(
    'BR-DE-15',
    'buyer_reference',
    doc.buyer_reference,
    'XRechnung needs the buyer reference (Leitweg-ID): set `buyer_reference` on the client or the invoice',
  );
  need(
    'BR-DE-5',
    'account.contact_name',
    doc.seller.attention,
    'XRechnung needs the seller’s contact person',
  );
  need('BR-DE-6', 'account.phone', doc.seller.phone, 'XRechnung needs the seller’s phone number');
  need('BR-DE-7', 'account.email', doc.seller.email, 'XRechnung needs the seller’s e-mail address');
  need('BR-DE-3', 'account.city', doc.seller.city, 'XRechnung needs the seller’s city');
  need('BR-DE-4', 'account.zip', doc.seller.zip, 'XRechnung needs the seller’s post code');
  need('BR-DE-8', 'client.city', doc.buyer.city, 'XRechnung needs the buyer’s city');
  need('BR-DE-9', 'client.zip', doc.buyer.zip, 'XRechnung needs the buyer’s post code');
  need('BR-DE-1', 'account.iban', doc.seller.iban, 'XRechnung needs payment instructions (an IBAN)');
  return errors;
}

export interface RecipientInput {
  to?: string[];
  cc?: string[];
  bcc?: string[];
}

export interface Recipients {
  to: string[];
  cc: string[];
  bcc: string[];
}

/**
 * Who gets the message: `to` as given, else the client's `invoice_email`, else the e-mail of
 * the document's contact, else the client's `email`. An address appears once (to before cc
 * before bcc, compared without case). Null when nobody is left to send to.
 */
export function resolveRecipients(
  input: RecipientInput,
  defaults: { invoiceEmail?: string | null; contactEmail?: string | null; clientEmail?: string | null },
): Recipients | null {
  const fallback = [defaults.invoiceEmail, defaults.contactEmail, defaults.clientEmail].find(
    (e) => !blank(e),
  );
  const to = input.to && input.to.length > 0 ? input.to : fallback ? [fallback.trim()] : [];
  const seen = new Set<string>();
  const unique = (list: string[]) =>
    list.filter((a) => {
      const key = a.trim().toLowerCase();
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  const result = { to: unique(to), cc: unique(input.cc ?? []), bcc: unique(input.bcc ?? []) };
  return result.to.length > 0 ? result : null;
}

export type MailLanguage = 'de' | 'en';

export interface Template {
  subject: string;
  body: string;
}

export const TEMPLATE_KINDS = ['invoice', 'credit', 'offer'] as const;
export type TemplateKind = (typeof TEMPLATE_KINDS)[number];

/** The built-in texts; `{…}` are placeholders (see PLACEHOLDERS_OF). */
export const BUILT_IN_TEMPLATES: Record<MailLanguage, Record<TemplateKind, Template>> = {
  en: {
    invoice: {
      subject: 'Invoice {invoice_number} from {company_name}',
      body: 'Hello,\n\nplease find attached our invoice {invoice_number} of {invoice_date} for {amount_due}, due on {due_date}.\n\nKind regards\n{company_name}',
    },
    credit: {
      subject: 'Credit note {invoice_number} from {company_name}',
      body: 'Hello,\n\nplease find attached our credit note {invoice_number} of {invoice_date} for {gross_total}.\n\nKind regards\n{company_name}',
    },
    offer: {
      subject: 'Offer {offer_number} from {company_name}',
      body: 'Hello,\n\nplease find attached our offer {offer_number} of {offer_date} for {gross_total}, valid until {valid_until}.\n\nKind regards\n{company_name}',
    },
  },
  de: {
    invoice: {
      subject: 'Rechnung {invoice_number} von {company_name}',
      body: 'Guten Tag,\n\nanbei erhalten Sie unsere Rechnung {invoice_number} vom {invoice_date} über {amount_due}, fällig am {due_date}.\n\nMit freundlichen Grüßen\n{company_name}',
    },
    credit: {
      subject: 'Gutschrift {invoice_number} von {company_name}',
      body: 'Guten Tag,\n\nanbei erhalten Sie unsere Gutschrift {invoice_number} vom {invoice_date} über {gross_total}.\n\nMit freundlichen Grüßen\n{company_name}',
    },
    offer: {
      subject: 'Angebot {offer_number} von {company_name}',
      body: 'Guten Tag,\n\nanbei erhalten Sie unser Angebot {offer_number} vom {offer_date} über {gross_total}, gültig bis {valid_until}.\n\nMit freundlichen Grüßen\n{company_name}',
    },
  },
};

export const PLACEHOLDERS = [
  'invoice_number',
  'invoice_date',
  'due_date',
  'amount_due',
  'gross_total',
  'currency',
  'client_name',
  'company_name',
] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];

/** An offer's placeholders: it has no due date and nothing is owed yet. */
export const OFFER_PLACEHOLDERS = [
  'offer_number',
  'offer_date',
  'valid_until',
  'gross_total',
  'currency',
  'client_name',
  'company_name',
] as const;
export type OfferPlaceholder = (typeof OFFER_PLACEHOLDERS)[number];

/** The placeholders a template of each kind may use. */
export const PLACEHOLDERS_OF: Record<TemplateKind, readonly string[]> = {
  invoice: PLACEHOLDERS,
  credit: PLACEHOLDERS,
  offer: OFFER_PLACEHOLDERS,
};

/** The placeholders' values for a document, formatted in the message's language. */
export function placeholderValues(
  doc: {
    number: string | null;
    date: string | null;
    due_date: string | null;
    currency: string;
    /** Exact decimal strings. */
    gross_total: string;
    amount_due: string;
    client_name: string | null;
    company_name: string;
  },
  language: MailLanguage,
): Record<Placeholder, string> {
  const f = formatterFor({ language, currency: doc.currency });
  return {
    invoice_number: doc.number ?? '',
    invoice_date: f.date(doc.date),
    due_date: f.date(doc.due_date),
    amount_due: f.money(doc.amount_due),
    gross_total: f.money(doc.gross_total),
    currency: doc.currency,
    client_name: doc.client_name ?? '',
    company_name: doc.company_name,
  };
}

/** An offer's placeholders' values, formatted in the message's language. */
export function offerPlaceholderValues(
  offer: {
    number: string | null;
    date: string | null;
    valid_until: string | null;
    currency: string;
    /** An exact decimal string. */
    gross_total: string;
    client_name: string | null;
    company_name: string;
  },
  language: MailLanguage,
): Record<OfferPlaceholder, string> {
  const f = formatterFor({ language, currency: offer.currency });
  return {
    offer_number: offer.number ?? '',
    offer_date: f.date(offer.date),
    valid_until: f.date(offer.valid_until),
    gross_total: f.money(offer.gross_total),
    currency: offer.currency,
    client_name: offer.client_name ?? '',
    company_name: offer.company_name,
  };
}

/** The `{name}` placeholders of a template that a template of `kind` may not use. */
export function unknownPlaceholders(template: string, kind: TemplateKind = 'invoice'): string[] {
  const known = new Set<string>(PLACEHOLDERS_OF[kind]);
  return [...new Set([...template.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]!))].filter(
    (n) => !known.has(n),
  );
}

/** Fills `{name}` placeholders; an unknown one stays as written. */
export function fill(template: string, values: Partial<Record<string, string>>): string {
  return template.replace(/\{([a-z_]+)\}/g, (m, name: string) => values[name] ?? m);
}

/** A subject is one header line: line breaks (from a filled-in name) become spaces. */
export const subjectLine = (s: string) => s.replace(/[\r\n\t]+/g, ' ').trim();

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** The HTML part of a plain-text body: escaped, paragraphs at blank lines, line breaks kept. */
export function htmlOf(text: string): string {
  const escaped = text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
  const paragraphs = escaped
    .split(/\r?\n\s*\r?\n/)
    .map((p) => `<p>${p.replace(/\r?\n/g, '<br>\n')}</p>`)
    .join('\n');
  return `<!DOCTYPE html>\n<html><head><meta charset="utf-8"></head><body>\n${paragraphs}\n</body></html>\n`;
}

export interface RenderedMessage {
  subject: string;
  text: string;
  html: string;
}

/** The message's texts: the caller's subject and message if given, else the template's. */
export function renderMessage(
  template: Template,
  values: Partial<Record<string, string>>,
  own: { subject?: string; message?: string },
): RenderedMessage {
  const subject = subjectLine(fill(own.subject ?? template.subject, values));
  const text = fill(own.message ?? template.body, values);
  return { subject, text, html: htmlOf(text) };
}

/** How a failed attempt ends: tried again later, or failed for good. */
export type SmtpVerdict = 'retry' | 'fail';

/**
 * A relay's 4xx (greylisting, "try again later") and failures to reach or talk to it
 * (connection refused, timeouts, a dropped connection) are tried again; a 5xx is final (the
 * mailbox does not exist, the message is refused). An error without an SMTP code that is not
 * about the connection (a message nodemailer cannot build) is final too.
 */
export function smtpVerdict(err: { responseCode?: number; code?: string }): SmtpVerdict {
  const status = err.responseCode;
  if (typeof status === 'number') return status >= 400 && status < 500 ? 'retry' : 'fail';
  const transient = [
    'ECONNECTION',
    'ETIMEDOUT',
    'ESOCKET',
    'EDNS',
    'ECONNREFUSED',
    'ECONNRESET',
    'EPROTOCOL',
  ];
  return err.code === undefined || transient.includes(err.code) ? 'retry' : 'fail';
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * Waits before each retry: 1 min, 5 min, 15 min, 1 h, 3 h, 6 h, 12 h (about 22.5 hours in all,
 * long enough for greylisting and a relay's maintenance); then the message has failed.
 */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [
  MINUTE,
  5 * MINUTE,
  15 * MINUTE,
  HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
];

/** The wait after the `attempts`-th failed attempt, or null when none is left. */
export function retryDelay(
  attempts: number,
  delays: readonly number[] = DEFAULT_RETRY_DELAYS_MS,
): number | null {
  if (attempts < 1) return 0;
  return delays[attempts - 1] ?? null;
}
