import { Type } from 'typebox';
import type { ImportContext, ImportSection } from '../../import/context.js';
import { CountryCode, Email } from '../../shared/schemas.js';
import { importedCustomFields, uniqueExternalIds } from '../companies/companies.import.js';
import { CustomFieldValuesInput } from '../custom-fields/custom-fields.schemas.js';
import { insertContact } from './contacts.repository.js';

const Str = (max = 255) => Type.Optional(Type.String({ maxLength: max }));

const ContactItem = Type.Object(
  {
    key: Type.Optional(
      Type.String({ minLength: 1, description: 'Reference used by later records of the file' }),
    ),
    company: Type.Optional(Type.String({ minLength: 1, description: 'Key of a company of the file' })),
    external_id: Str(),
    salutation: Str(64),
    title: Str(64),
    first_name: Str(),
    last_name: Type.String({ minLength: 1, maxLength: 255 }),
    email: Type.Optional(Email),
    phone: Str(64),
    mobile: Str(64),
    position: Str(),
    department: Str(),
    street: Str(),
    zip: Str(32),
    city: Str(),
    country_code: Type.Optional(CountryCode),
    notes: Str(10000),
    custom_fields: Type.Optional(CustomFieldValuesInput),
    archived: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

type Item = Record<string, unknown> & {
  key?: string;
  company?: string;
  last_name: string;
  external_id?: string;
  custom_fields?: Record<string, unknown>;
  archived?: boolean;
};

export const contactsSection: ImportSection = {
  key: 'contacts',
  item: ContactItem,
  description:
    'CRM contacts. `company` is the key of a company earlier in the file; `archived: true` imports them archived.',
  async run(ctx: ImportContext, items) {
    const list = items as Item[];
    uniqueExternalIds('contacts', list);
    const now = new Date().toISOString();
    for (const [i, { key, company, archived, custom_fields, ...fields }] of list.entries()) {
      const row = await insertContact(ctx.trx, {
        ...fields,
        company_id: ctx.optionalRef('companies', company, `contacts.${i}.company`),
        custom_fields: await importedCustomFields(ctx, 'contact', custom_fields, `contacts.${i}`),
        account_id: ctx.accountId,
        archived_at: archived ? now : null,
      });
      ctx.remember('contacts', key, row.id);
    }
  },
};
