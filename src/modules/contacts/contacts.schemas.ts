import { type Static, Type } from 'typebox';
import { ArchivableListQuery, ArchivableStamps } from '../../shared/archivable.js';
import { IgnoredExternalId } from '../../shared/external-id.js';
import { CountryCode, Email, Id, Nullable, optional, Text } from '../../shared/schemas.js';
import { CustomFieldValues, CustomFieldValuesInput } from '../custom-fields/custom-fields.public.js';

/** Fields a caller may write (create and update). */
const writable = {
  salutation: Nullable(Type.String({ maxLength: 64, description: 'Form of address, e.g. "Ms", "Herr"' })),
  title: Nullable(Type.String({ maxLength: 64, description: 'Academic or honorary title, e.g. "Dr."' })),
  first_name: Text(255),
  last_name: Type.String({ minLength: 1, maxLength: 255 }),
  email: Nullable(Email),
  phone: Text(64),
  mobile: Text(64),
  position: Text(255),
  department: Text(255),
  street: Text(255),
  zip: Text(32),
  city: Text(255),
  country_code: Nullable(CountryCode),
  notes: Text(10000),
  custom_fields: CustomFieldValuesInput,
};

const { last_name, ...rest } = writable;

export const Contact = Type.Object(
  {
    id: Id,
    external_id: Text(),
    company_id: Nullable(Type.Integer({ description: 'The company the contact is attached to, if any' })),
    ...writable,
    custom_fields: CustomFieldValues,
    ...ArchivableStamps,
  },
  { $id: 'Contact', description: 'A contact person; attached to at most one company.' },
);
export type Contact = Static<typeof Contact>;

export const ContactCreate = Type.Object(
  {
    last_name,
    ...optional(rest),
    external_id: Type.Optional(Text()),
    company_id: Type.Optional(
      Nullable(Type.Integer({ minimum: 1, description: 'Attach to this company (active, of this account)' })),
    ),
  },
  { additionalProperties: false },
);
export type ContactCreate = Static<typeof ContactCreate>;

/** `external_id` has its own endpoint; PATCH accepts and ignores it. */
export const ContactUpdate = Type.Object(
  {
    ...optional(writable),
    external_id: IgnoredExternalId('/contacts'),
  },
  { additionalProperties: false },
);
export type ContactUpdate = Omit<Static<typeof ContactUpdate>, 'external_id'>;

export const AttachBody = Type.Object(
  { company_id: Type.Integer({ minimum: 1, maximum: 2147483647, description: 'The company to attach to' }) },
  { additionalProperties: false },
);
export type AttachBody = Static<typeof AttachBody>;

export const ContactListQuery = ArchivableListQuery(['last_name', 'first_name', 'company_id', 'city'], {
  q: Type.Optional(
    Type.String({
      maxLength: 255,
      description:
        'Case-insensitive substring match on the name ("first last"), email or the company name (`%` and `_` are plain characters)',
    }),
  ),
  external_id: Type.Optional(Type.String({ maxLength: 255 })),
  company_id: Type.Optional(Id),
});
export type ContactListQuery = Static<typeof ContactListQuery>;
