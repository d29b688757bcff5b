import { Type } from 'typebox';
import { CountryCode, Email } from '../../shared/schemas.js';
import { crmItem, crmSection, Str } from '../companies/companies.public.js';
import { insertContact } from './contacts.repository.js';

export const contactsSection = crmSection({
  key: 'contacts',
  entity: 'contact',
  item: crmItem({
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
  }),
  description:
    'CRM contacts. `company` is the key of a company earlier in the file; `archived: true` imports them archived.',
  // The company's key becomes its id (before custom fields are checked, as always).
  columns: (ctx, { company, ...fields }, i) => ({
    ...fields,
    company_id: ctx.optionalRef('companies', company as string | undefined, `contacts.${i}.company`),
  }),
  insert: (ctx, values) => insertContact(ctx.trx, values as Parameters<typeof insertContact>[1]),
});
