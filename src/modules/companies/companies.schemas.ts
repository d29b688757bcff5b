import { type Static, Type } from 'typebox';
import { ArchivableListQuery, ArchivableStamps } from '../../shared/archivable.js';
import { IgnoredExternalId } from '../../shared/external-id.js';
import { CountryCode, Email, Id, Nullable, optional, Text } from '../../shared/schemas.js';
import { CustomFieldValues, CustomFieldValuesInput } from '../custom-fields/custom-fields.public.js';

/** Fields a caller may write (create and update). */
const writable = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  email: Nullable(Email),
  phone: Text(64),
  website: Text(2048),
  street: Nullable(Type.String({ maxLength: 255, description: 'Billing address: street and number' })),
  zip: Nullable(Type.String({ maxLength: 32, description: 'Billing address: postal code' })),
  city: Nullable(Type.String({ maxLength: 255, description: 'Billing address: city' })),
  country_code: Nullable(CountryCode),
  vat_id: Text(64),
  tax_number: Text(64),
  notes: Text(10000),
  custom_fields: CustomFieldValuesInput,
};

const { name, ...rest } = writable;

export const Company = Type.Object(
  {
    id: Id,
    name,
    external_id: Text(),
    ...rest,
    custom_fields: CustomFieldValues,
    ...ArchivableStamps,
  },
  {
    $id: 'Company',
    description: 'A company (organisation) of the CRM; street/zip/city/country_code are its billing address.',
  },
);
export type Company = Static<typeof Company>;

export const CompanyCreate = Type.Object(
  { name, ...optional(rest), external_id: Type.Optional(Text()) },
  { additionalProperties: false },
);
export type CompanyCreate = Static<typeof CompanyCreate>;

/** `external_id` has its own endpoint; PATCH accepts and ignores it. */
export const CompanyUpdate = Type.Object(
  {
    ...optional(writable),
    external_id: IgnoredExternalId('/companies'),
  },
  { additionalProperties: false },
);
export type CompanyUpdate = Omit<Static<typeof CompanyUpdate>, 'external_id'>;

export const CompanyListQuery = ArchivableListQuery(['name', 'city', 'country_code'], {
  q: Type.Optional(
    Type.String({
      maxLength: 255,
      description: 'Case-insensitive substring match on name or email (`%` and `_` are plain characters)',
    }),
  ),
  external_id: Type.Optional(Type.String({ maxLength: 255 })),
});
export type CompanyListQuery = Static<typeof CompanyListQuery>;
