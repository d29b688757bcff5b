import { AppError } from '../../shared/errors.js';
import { DEFAULT_NUMBER_FORMATS, type NumberKind, numberFormatError } from '../../shared/number-formats.js';
import { formatterFor } from '../../shared/pdf/format.js';
import { type AccountingSettings, accountingSettings, storedAccounting } from './accounting.domain.js';

export {
  ACCOUNT_KEYS,
  type AccountingSettings,
  type AccountKey,
  atLength,
  CHART_DEFAULTS,
  personalRange,
} from './accounting.domain.js';

/**
 * What invoicing reads from `accounts.settings` (JSON; written by the account profile API and
 * console, src/modules/account, and by the import's `account`):
 *
 *   { "street", "zip", "city", "email", "phone", "vat_id", "tax_number",
 *     "contact_name" (the seller contact of e-invoices, BT-41; with "phone" and "email" BT-42/43),
 *     "service_date_defaults_to_invoice_date": true (an invoice without a service period was
 *       supplied on its invoice date; printed as such, else booking asks for the period),
 *     "iban", "bic", "bank_name",
 *     "sepa_creditor_identifier" (the SEPA creditor identifier that direct debit files name),
 *     "invoice_number_format": "RE-{YYYY}-{NNNNN}", "credit_number_format": "GS-{YYYY}-{NNNNN}",
 *     "invoice_intro_text", "invoice_closing_text" (printed when an invoice has none of its own),
 *     "payment_term_days" (an invoice without terms or due date is due this many days after its date),
 *     "payment_terms_text" (replaces the printed payment sentence; {due_date} and {days} are filled in),
 *     "default_hourly_rate" (cents: the last step of the rate order of billed time),
 *     "logo": { "sha256", "content_type", "byte_size", "updated_at" } (the image is in account_logos) }
 *
 * Number formats know {YYYY}, {YY} and one counter {N…} (its width is the zero padding).
 */
export interface AccountProfile {
  name: string;
  country_code: string | null;
  street: string | null;
  zip: string | null;
  city: string | null;
  email: string | null;
  phone: string | null;
  contact_name: string | null;
  service_date_defaults_to_invoice_date: boolean;
  vat_id: string | null;
  tax_number: string | null;
  iban: string | null;
  bic: string | null;
  bank_name: string | null;
  sepa_creditor_identifier: string | null;
  number_formats: Record<NumberKind, string>;
  invoice_intro_text: string | null;
  invoice_closing_text: string | null;
  payment_term_days: number | null;
  payment_terms_text: string | null;
  /** Cents an hour: the sale rate where no effort, task, team, project or user rate applies. */
  default_hourly_rate: number | null;
  logo: AccountLogoRef | null;
  /** `accounting`: DATEV export and VAT settings (accounting.domain.ts). */
  accounting: AccountingSettings;
}

/** The account's current logo: the bytes are kept by their hash, so an older one stays readable. */
export interface AccountLogoRef {
  sha256: string;
  content_type: 'image/png' | 'image/jpeg';
  byte_size: number;
  updated_at: string;
}

/** The settings keys of the profile's text fields (the JSON names of the wire, too). */
export const PROFILE_TEXT_KEYS = [
  'street',
  'zip',
  'city',
  'email',
  'phone',
  'contact_name',
  'vat_id',
  'tax_number',
  'iban',
  'bic',
  'bank_name',
  'sepa_creditor_identifier',
  'invoice_intro_text',
  'invoice_closing_text',
  'payment_terms_text',
] as const;

export const NUMBER_KINDS: readonly NumberKind[] = ['invoice', 'credit'];

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);
const cents = (v: unknown): number | null =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : null;

function logoRef(v: unknown): AccountLogoRef | null {
  if (!v || typeof v !== 'object') return null;
  const l = v as Record<string, unknown>;
  if (typeof l.sha256 !== 'string' || (l.content_type !== 'image/png' && l.content_type !== 'image/jpeg'))
    return null;
  return {
    sha256: l.sha256,
    content_type: l.content_type,
    byte_size: typeof l.byte_size === 'number' ? l.byte_size : 0,
    updated_at: typeof l.updated_at === 'string' ? l.updated_at : '',
  };
}

/** The settings JSON as an object; unreadable settings behave like none. */
export function parseSettings(settings: string | null): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(settings || '{}');
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // Unreadable settings behave like none: defaults everywhere.
  }
  return {};
}

export function accountProfile(account: {
  name: string;
  country_code: string | null;
  settings: string | null;
}): AccountProfile {
  const s = parseSettings(account.settings);
  const days = s.payment_term_days;
  return {
    name: account.name,
    country_code: account.country_code,
    street: text(s.street),
    zip: text(s.zip),
    city: text(s.city),
    email: text(s.email),
    phone: text(s.phone),
    contact_name: text(s.contact_name),
    service_date_defaults_to_invoice_date: s.service_date_defaults_to_invoice_date === true,
    vat_id: text(s.vat_id),
    tax_number: text(s.tax_number),
    iban: text(s.iban),
    bic: text(s.bic),
    bank_name: text(s.bank_name),
    sepa_creditor_identifier: text(s.sepa_creditor_identifier),
    number_formats: {
      invoice: text(s.invoice_number_format) ?? DEFAULT_NUMBER_FORMATS.invoice,
      credit: text(s.credit_number_format) ?? DEFAULT_NUMBER_FORMATS.credit,
    },
    invoice_intro_text: text(s.invoice_intro_text),
    invoice_closing_text: text(s.invoice_closing_text),
    payment_term_days:
      typeof days === 'number' && Number.isInteger(days) && days >= 0 && days <= 365 ? days : null,
    payment_terms_text: text(s.payment_terms_text),
    default_hourly_rate: cents(s.default_hourly_rate),
    logo: logoRef(s.logo),
    accounting: accountingSettings(s.accounting),
  };
}

/**
 * The settings JSON for a profile: the profile's keys written from it (absent when empty),
 * every other key of `previous` kept as it was (settings hold more than the profile).
 */
export function profileSettings(previous: string | null, p: AccountProfile): string {
  const s = parseSettings(previous);
  for (const key of PROFILE_TEXT_KEYS) {
    if (p[key] === null) delete s[key];
    else s[key] = p[key];
  }
  for (const kind of NUMBER_KINDS) s[`${kind}_number_format`] = p.number_formats[kind];
  if (p.payment_term_days === null) delete s.payment_term_days;
  else s.payment_term_days = p.payment_term_days;
  s.service_date_defaults_to_invoice_date = p.service_date_defaults_to_invoice_date;
  if (p.default_hourly_rate === null) delete s.default_hourly_rate;
  else s.default_hourly_rate = p.default_hourly_rate;
  if (p.logo === null) delete s.logo;
  else s.logo = p.logo;
  s.accounting = storedAccounting(p.accounting);
  return JSON.stringify(s);
}

/** Why a number format cannot be used (null: it can). */
export const numberFormatProblem = (format: string): string | null => numberFormatError(format);

/** The account's format for a kind of number; a broken setting stops booking with a clear 422. */
export function numberFormatFor(profile: AccountProfile, kind: NumberKind): string {
  const format = profile.number_formats[kind];
  const error = numberFormatError(format);
  if (error) {
    throw new AppError('unprocessable', `The account setting ${kind}_number_format "${format}" ${error}`);
  }
  return format;
}

/**
 * The payment sentence of the account's profile for a document (null: the printed default),
 * with `{due_date}` and `{days}` filled in. Credits and offers keep their own sentence.
 */
export function profilePaymentTerms(
  profile: AccountProfile,
  kind: string,
  lang: 'en' | 'de',
  d: { due_date: string | null; payment_term_days: number | null },
): string | null {
  if (!profile.payment_terms_text || kind === 'credit' || kind === 'offer') return null;
  const due = d.due_date ? formatterFor({ language: lang, currency: 'EUR' }).date(d.due_date) : '';
  return profile.payment_terms_text
    .replaceAll('{due_date}', due)
    .replaceAll('{days}', d.payment_term_days === null ? '' : String(d.payment_term_days));
}

/** The profile's patch schema and field limits, for the console's form and the CLI. */
export { AccountProfilePatch, LIMITS } from './account.schemas.js';
