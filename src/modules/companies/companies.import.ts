import { Type } from 'typebox';
import type { ImportContext, ImportSection } from '../../import/context.js';
import { AppError } from '../../shared/errors.js';
import { CountryCode, Email } from '../../shared/schemas.js';
import { insertCompany } from './companies.repository.js';
import { CustomFields } from './contact-data.js';

const Str = (max = 255) => Type.Optional(Type.String({ maxLength: max }));

const CompanyItem = Type.Object(
  {
    key: Type.Optional(
      Type.String({ minLength: 1, description: 'Reference used by later records of the file' }),
    ),
    name: Type.String({ minLength: 1, maxLength: 255 }),
    external_id: Str(),
    email: Type.Optional(Email),
    phone: Str(64),
    website: Str(2048),
    street: Str(),
    zip: Str(32),
    city: Str(),
    country_code: Type.Optional(CountryCode),
    vat_id: Str(64),
    tax_number: Str(64),
    notes: Str(10000),
    custom_fields: Type.Optional(CustomFields),
    archived: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

type Item = Record<string, unknown> & {
  key?: string;
  name: string;
  external_id?: string;
  custom_fields?: object;
  archived?: boolean;
};

/** Refuses an external id used twice in one section, naming where (clearer than the DB error). */
export function uniqueExternalIds(section: string, items: { external_id?: string }[]): void {
  const seen = new Map<string, number>();
  items.forEach((item, i) => {
    if (item.external_id === undefined) return;
    const first = seen.get(item.external_id);
    if (first !== undefined) {
      throw new AppError('validation_failed', `${section}.${i}.external_id: same as ${section}.${first}`, {
        errors: [{ field: `${section}.${i}.external_id`, message: 'is used twice in the file' }],
      });
    }
    seen.set(item.external_id, i);
  });
}

export const companiesSection: ImportSection = {
  key: 'companies',
  item: CompanyItem,
  description:
    'CRM companies. `custom_fields` is an object of scalar values; `archived: true` imports them archived. Contacts refer to them by `key`.',
  async run(ctx: ImportContext, items) {
    const list = items as Item[];
    uniqueExternalIds('companies', list);
    const now = new Date().toISOString();
    for (const { key, archived, custom_fields, ...fields } of list) {
      const row = await insertCompany(ctx.trx, {
        ...fields,
        custom_fields: JSON.stringify(custom_fields ?? {}),
        account_id: ctx.accountId,
        archived_at: archived ? now : null,
      });
      ctx.remember('companies', key, row.id);
    }
  },
};
