import { AppError } from '../../shared/errors.js';
import { DEFAULT_NUMBER_FORMATS, type NumberKind, numberFormatError } from './invoices.domain.js';

/**
 * What invoicing reads from `accounts.settings` (JSON, set through the import's `account`):
 *
 *   { "street", "zip", "city", "email", "phone", "vat_id", "tax_number",
 *     "contact_name" (the seller contact of e-invoices, BT-41; with "phone" and "email" BT-42/43),
 *     "service_date_defaults_to_invoice_date": true (an invoice without a service period was
 *       supplied on its invoice date; printed as such, else booking asks for the period),
 *     "iban", "bic", "bank_name",
 *     "invoice_number_format": "RE-{YYYY}-{NNNNN}", "credit_number_format": "GS-{YYYY}-{NNNNN}" }
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
  number_formats: Record<NumberKind, string>;
}

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);

export function accountProfile(account: {
  name: string;
  country_code: string | null;
  settings: string | null;
}): AccountProfile {
  let s: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(account.settings || '{}');
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) s = parsed as Record<string, unknown>;
  } catch {
    // Unreadable settings behave like none: defaults everywhere.
  }
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
    number_formats: {
      invoice: text(s.invoice_number_format) ?? DEFAULT_NUMBER_FORMATS.invoice,
      credit: text(s.credit_number_format) ?? DEFAULT_NUMBER_FORMATS.credit,
    },
  };
}

/** The account's format for a kind of number; a broken setting stops booking with a clear 422. */
export function numberFormatFor(profile: AccountProfile, kind: NumberKind): string {
  const format = profile.number_formats[kind];
  const error = numberFormatError(format);
  if (error) {
    throw new AppError('unprocessable', `The account setting ${kind}_number_format "${format}" ${error}`);
  }
  return format;
}
