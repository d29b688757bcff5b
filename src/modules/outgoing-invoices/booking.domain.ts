import type { FieldError } from '../../shared/errors.js';
import type { AccountProfile } from '../account/profile.public.js';
import type { BuyerRow } from './invoices.pdf.js';

/**
 * What §14 (4) UStG and the mandatory fields of EN 16931 ask of an invoice before it is
 * issued: who sells (name, address, VAT id or tax number), who buys (name, address), when it
 * was supplied, and why a 0 % line carries no VAT. With a buyer reference (a public-sector
 * buyer's Leitweg-ID) the XRechnung rules add the seller contact and payment instructions.
 * Pure: every missing field is listed at once, under the name of the resource that lacks it.
 */

export const EXEMPTION_CATEGORIES = ['AE', 'K', 'G', 'E', 'Z', 'O'] as const;

export interface LegalCheckInput {
  seller: AccountProfile;
  buyer: (BuyerRow & { buyer_reference?: string | null }) | undefined;
  invoice: {
    service_period_start: string | null;
    service_period_end: string | null;
    buyer_reference: string | null;
    tax_exemption_category: string | null;
    tax_exemption_reason_code: string | null;
    tax_exemption_reason: string | null;
  };
  /** Tax rates of the lines, as exact decimal strings. */
  rates: string[];
}

const blank = (v: string | null | undefined) => v === null || v === undefined || v.trim() === '';

export function legalCompletenessErrors(c: LegalCheckInput): FieldError[] {
  const errors: FieldError[] = [];
  const need = (field: string, value: string | null | undefined, message: string) => {
    if (blank(value)) errors.push({ field, message });
  };
  const s = c.seller;
  need('account.street', s.street, 'the seller’s street is required (account setting `street`)');
  need('account.zip', s.zip, 'the seller’s postcode is required (account setting `zip`)');
  need('account.city', s.city, 'the seller’s city is required (account setting `city`)');
  need('account.country_code', s.country_code, 'the seller’s country is required');
  if (blank(s.vat_id) && blank(s.tax_number))
    errors.push({
      field: 'account.vat_id',
      message: 'the seller’s VAT id or tax number is required (account setting `vat_id` or `tax_number`)',
    });

  const b = c.buyer;
  if (b) {
    need('client.name', b.name, 'the buyer’s name is required');
    need('client.street', b.street, 'the buyer’s street is required');
    need('client.zip', b.zip, 'the buyer’s postcode is required');
    need('client.city', b.city, 'the buyer’s city is required');
    need('client.country_code', b.country_code, 'the buyer’s country is required');
  }

  const inv = c.invoice;
  if (
    blank(inv.service_period_start) &&
    blank(inv.service_period_end) &&
    !s.service_date_defaults_to_invoice_date
  )
    errors.push({
      field: 'service_period_start',
      message:
        'a supply date or service period is required (or the account setting `service_date_defaults_to_invoice_date`)',
    });

  const zeroRated = c.rates.some((r) => Number(r) === 0);
  const category = inv.tax_exemption_category;
  if (zeroRated) {
    if (blank(category)) {
      errors.push({
        field: 'tax_exemption_category',
        message: `lines at 0 % need the reason why no VAT is charged: one of ${EXEMPTION_CATEGORIES.join(', ')}`,
      });
    } else if (category === 'E' && blank(inv.tax_exemption_reason) && blank(inv.tax_exemption_reason_code)) {
      errors.push({
        field: 'tax_exemption_reason',
        message: 'an exempt invoice (E) names its legal basis (e.g. "Kleinunternehmer gemäß § 19 UStG")',
      });
    }
    // Reverse charge and intra-community supplies name both VAT ids (BR-AE-02, BR-IC-02);
    // an export names the seller's (BR-G-02).
    if (category === 'AE' || category === 'K' || category === 'G')
      need(
        'account.vat_id',
        errors.some((e) => e.field === 'account.vat_id') ? 'x' : s.vat_id,
        `the seller’s VAT id is required for category ${category}`,
      );
    if ((category === 'AE' || category === 'K') && b)
      need('client.vat_id', b.vat_id, `the buyer’s VAT id is required for category ${category}`);
  }

  // XRechnung (BR-DE-1, BR-DE-2, BR-DE-5/6/7): a public-sector buyer gets a seller contact and
  // payment instructions.
  if (!blank(inv.buyer_reference ?? b?.buyer_reference)) {
    need(
      'account.contact_name',
      s.contact_name,
      'XRechnung needs the seller’s contact person (account setting `contact_name`)',
    );
    need('account.phone', s.phone, 'XRechnung needs the seller’s phone number (account setting `phone`)');
    need('account.email', s.email, 'XRechnung needs the seller’s e-mail address (account setting `email`)');
    need('account.iban', s.iban, 'XRechnung needs payment instructions (account setting `iban`)');
  }
  return errors;
}
