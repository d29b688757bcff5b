import { type Static, Type } from 'typebox';
import { ArchivableListQuery, ArchivableStamps } from '../../shared/archivable.js';
import { IgnoredExternalId } from '../../shared/external-id.js';
import {
  CountryCode,
  CurrencyCode,
  Email,
  Id,
  Ignored,
  Nullable,
  optional,
  pick,
  Text,
} from '../../shared/schemas.js';

export const EINVOICE_FORMATS = ['zugferd', 'xrechnung_cii', 'xrechnung_ubl', 'pdf_and_xrechnung'] as const;

/** Fields a caller may write (create and update). */
const writable = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  email: Nullable(Email),
  phone: Text(64),
  website: Text(2048),
  street: Text(),
  zip: Text(32),
  city: Text(),
  country_code: Nullable(CountryCode),
  vat_id: Text(64),
  tax_number: Text(64),
  language: Nullable(
    Type.String({
      pattern: '^[a-z]{2}$',
      description: 'ISO 639-1; invoices and offers print in German for `de`, in English otherwise',
    }),
  ),
  buyer_reference: Nullable(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        'The buyer reference of e-invoices (BT-10), e.g. a German Leitweg-ID; an invoice’s own `buyer_reference` overrides it',
    }),
  ),
  invoice_email: Nullable({
    ...Email,
    description: 'Where invoices are e-mailed; else the contact’s, else the client’s `email`',
  }),
  einvoice_format: Type.Union(
    EINVOICE_FORMATS.map((f) => Type.Literal(f)),
    {
      description:
        'What an e-mailed invoice carries: `zugferd` (PDF/A-3 with embedded CII, the default), `xrechnung_cii` or `xrechnung_ubl` (the XML alone; needs a `buyer_reference`), `pdf_and_xrechnung` (the PDF and the UBL XML)',
    },
  ),
  is_consumer: Type.Boolean({
    description:
      'A consumer (§ 13 BGB): default interest of dunning letters is the base rate + 5 points instead of + 9, and no € 40 lump sum; default false',
  }),
  dunning_blocked: Type.Boolean({
    description: 'The dunning run skips the client’s invoices; default false',
  }),
  currency: Nullable(CurrencyCode),
  payment_term_days: Nullable(Type.Integer({ minimum: 0, maximum: 3650 })),
  notes: Text(10000),
};

const { name, ...rest } = writable;

const fullProps = {
  id: Id,
  name,
  shortcode: Text(32),
  external_id: Text(),
  ...rest,
  ...ArchivableStamps,
};

export const ClientFull = Type.Object(fullProps, { $id: 'ClientFullData', description: 'ClientFullData' });
/** Basic data: a strict subset of ClientFullData. */
export const ClientBasic = Type.Object(pick(fullProps, ['id', 'name', 'shortcode', 'archived_at']), {
  $id: 'ClientBasic',
});
export type ClientFull = Static<typeof ClientFull>;
export type ClientBasic = Static<typeof ClientBasic>;

export const ClientCreate = Type.Object(
  { name, ...optional(rest), shortcode: Type.Optional(Text(32)), external_id: Type.Optional(Text()) },
  { additionalProperties: false },
);
export type ClientCreate = Static<typeof ClientCreate>;

/** `external_id` and `shortcode` have their own endpoints; PATCH accepts and ignores them. */
export const ClientUpdate = Type.Object(
  {
    ...optional(writable),
    external_id: IgnoredExternalId('/clients'),
    shortcode: Ignored(Text(32), 'Accepted and ignored: set it with PUT /clients/{id}/shortcode'),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type ClientUpdate = Omit<Static<typeof ClientUpdate>, 'external_id' | 'shortcode'>;

export const ShortcodeBody = Type.Object(
  { shortcode: Nullable(Type.String({ minLength: 1, maxLength: 32, pattern: '^[A-Za-z0-9_-]+$' })) },
  { additionalProperties: false },
);

export const ClientListQuery = ArchivableListQuery(['name', 'shortcode'], {
  q: Type.Optional(
    Type.String({ maxLength: 255, description: 'Case-insensitive match on name, shortcode or email' }),
  ),
  external_id: Type.Optional(Type.String({ maxLength: 255 })),
  shortcode: Type.Optional(Type.String({ maxLength: 32 })),
});
export type ClientListQuery = Static<typeof ClientListQuery>;
