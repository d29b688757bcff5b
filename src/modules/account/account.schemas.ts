import { type Static, Type } from 'typebox';
import { Nullable, RateInput, Text } from '../../shared/schemas.js';
import { AccountingSettings, AccountingSettingsPatch } from './accounting.schemas.js';

/** Bounds of the profile's fields: the schema, the service's checks and the console's form share them. */
export const LIMITS = {
  name: 200,
  street: 200,
  zip: 20,
  city: 100,
  email: 254,
  phone: 50,
  contact_name: 200,
  vat_id: 20,
  tax_number: 30,
  iban: 42,
  bic: 11,
  sepa_creditor_identifier: 35,
  bank_name: 100,
  invoice_intro_text: 2000,
  invoice_closing_text: 2000,
  payment_terms_text: 500,
  number_format: 64,
} as const;

/** Largest logo in bytes: it is printed small, and every PDF carries it. */
export const LOGO_MAX_BYTES = 256 * 1024;

const NumberFormats = Type.Object(
  {
    invoice: Type.String({
      minLength: 1,
      maxLength: LIMITS.number_format,
      description: 'Numbers of invoices, deposits, partial and final invoices, e.g. `RE-{YYYY}-{NNNNN}`',
    }),
    credit: Type.String({
      minLength: 1,
      maxLength: LIMITS.number_format,
      description: 'Numbers of credit notes, e.g. `GS-{YYYY}-{NNNNN}`',
    }),
  },
  {
    additionalProperties: false,
    description:
      'Number format per document kind: `{YYYY}` or `{YY}` (the year of the invoice date; the counter restarts every year when present) and exactly one counter `{N…}` whose width is its zero padding.',
  },
);

const LogoInfo = Type.Object(
  {
    content_type: Type.Union([Type.Literal('image/png'), Type.Literal('image/jpeg')]),
    byte_size: Type.Integer({ minimum: 1 }),
    sha256: Type.String({ description: 'Hex SHA-256 of the image' }),
    updated_at: Type.String({ format: 'date-time' }),
    url: Type.String({ description: 'Where the image is read: GET /account/profile/logo' }),
  },
  { additionalProperties: false },
);

const fields = {
  name: Type.String({
    minLength: 1,
    maxLength: LIMITS.name,
    description: 'Legal name, printed as the seller',
  }),
  street: Text(LIMITS.street, 'Street and house number'),
  zip: Text(LIMITS.zip, 'Postal code'),
  city: Text(LIMITS.city, 'City'),
  country_code: Nullable(Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 code' })),
  vat_id: Text(
    LIMITS.vat_id,
    'VAT identification number with its country prefix (e.g. DE123456789); checked against the format of that country',
  ),
  tax_number: Text(LIMITS.tax_number, 'Tax number (Steuernummer); digits, blanks, / . -'),
  contact_name: Text(LIMITS.contact_name, 'Contact person printed on invoices (EN 16931 BT-41)'),
  email: Nullable(
    Type.String({ format: 'email', maxLength: LIMITS.email, description: 'Billing e-mail (BT-43)' }),
  ),
  phone: Text(LIMITS.phone, 'Phone (BT-42): digits, blanks, + ( ) / . -'),
  iban: Text(LIMITS.iban, 'IBAN; blanks ignored, stored without them; the check digits are verified'),
  bic: Text(LIMITS.bic, 'BIC (ISO 9362), 8 or 11 characters'),
  bank_name: Text(LIMITS.bank_name, 'Name of the bank'),
  sepa_creditor_identifier: Text(
    LIMITS.sepa_creditor_identifier,
    'SEPA creditor identifier (Gläubiger-ID) that direct debit files name, e.g. DE98ZZZ09999999999; blanks ignored, the check digits (ISO 7064 mod 97-10) are verified',
  ),
  invoice_intro_text: Text(
    LIMITS.invoice_intro_text,
    'Printed above the line items of an invoice that has no intro text of its own',
  ),
  invoice_closing_text: Text(
    LIMITS.invoice_closing_text,
    'Printed below the totals of an invoice that has no closing text of its own',
  ),
  payment_term_days: Nullable(
    Type.Integer({
      minimum: 0,
      maximum: 365,
      description:
        'Days to pay: an invoice without its own terms or due date is due this long after its date (set at booking)',
    }),
  ),
  payment_terms_text: Text(
    LIMITS.payment_terms_text,
    'Replaces the printed payment sentence of invoices ("Payable without deduction by …"); `{due_date}` and `{days}` are filled in',
  ),
  default_hourly_rate: Nullable({
    ...RateInput,
    description:
      'Default sale rate an hour of billed time, where no effort, task, team member, project or user rate applies (beyond the specification)',
  }),
  service_date_defaults_to_invoice_date: Type.Boolean({
    description:
      'An invoice without a service period was supplied on its invoice date (printed as such); otherwise booking asks for the period',
  }),
  number_formats: NumberFormats,
  accounting: AccountingSettings,
};

export const AccountProfile = Type.Object(
  { ...fields, logo: Nullable(LogoInfo) },
  {
    $id: 'AccountProfile',
    additionalProperties: false,
    description: 'The company details every invoice prints',
  },
);
export type AccountProfile = Static<typeof AccountProfile>;

export const AccountProfilePatch = Type.Object(
  {
    name: Type.Optional(fields.name),
    street: Type.Optional(fields.street),
    zip: Type.Optional(fields.zip),
    city: Type.Optional(fields.city),
    country_code: Type.Optional(fields.country_code),
    vat_id: Type.Optional(fields.vat_id),
    tax_number: Type.Optional(fields.tax_number),
    contact_name: Type.Optional(fields.contact_name),
    email: Type.Optional(fields.email),
    phone: Type.Optional(fields.phone),
    iban: Type.Optional(fields.iban),
    bic: Type.Optional(fields.bic),
    bank_name: Type.Optional(fields.bank_name),
    sepa_creditor_identifier: Type.Optional(fields.sepa_creditor_identifier),
    invoice_intro_text: Type.Optional(fields.invoice_intro_text),
    invoice_closing_text: Type.Optional(fields.invoice_closing_text),
    payment_term_days: Type.Optional(fields.payment_term_days),
    payment_terms_text: Type.Optional(fields.payment_terms_text),
    default_hourly_rate: Type.Optional(fields.default_hourly_rate),
    service_date_defaults_to_invoice_date: Type.Optional(fields.service_date_defaults_to_invoice_date),
    number_formats: Type.Optional(
      Type.Object(
        {
          invoice: Type.Optional(NumberFormats.properties.invoice),
          credit: Type.Optional(NumberFormats.properties.credit),
        },
        { additionalProperties: false },
      ),
    ),
    accounting: Type.Optional(AccountingSettingsPatch),
  },
  {
    additionalProperties: false,
    description: 'Fields to change; absent fields stay, `null` clears an optional field',
  },
);
export type AccountProfilePatch = Static<typeof AccountProfilePatch>;
