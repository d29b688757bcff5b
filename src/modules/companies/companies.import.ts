import { Type } from 'typebox';
import type { ImportContext, ImportSection } from '../../import/context.js';
import { AppError } from '../../shared/errors.js';
import { CountryCode, Email } from '../../shared/schemas.js';
import { CustomFieldValuesInput } from '../custom-fields/custom-fields.schemas.js';
import { validateCustomFields } from '../custom-fields/custom-fields.service.js';
import { insertCompany } from './companies.repository.js';

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
    custom_fields: Type.Optional(CustomFieldValuesInput),
    archived: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

type Item = Record<string, unknown> & {
  key?: string;
  name: string;
  external_id?: string;
  custom_fields?: Record<string, unknown>;
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

/** Validated custom field values of one item; errors are re-rooted at the item (`companies.3.…`). */
export async function importedCustomFields(
  ctx: ImportContext,
  entity: 'company' | 'contact',
  values: Record<string, unknown> | undefined,
  at: string,
): Promise<string> {
  try {
    return JSON.stringify(await validateCustomFields(ctx.trx, ctx.accountId, entity, values));
  } catch (err) {
    if (!(err instanceof AppError) || !err.errors) throw err;
    const errors = err.errors.map((e) => ({ field: `${at}.${e.field}`, message: e.message }));
    throw new AppError('validation_failed', errors.map((e) => `${e.field}: ${e.message}`).join('; '), {
      errors,
    });
  }
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
    for (const [i, { key, archived, custom_fields, ...fields }] of list.entries()) {
      const row = await insertCompany(ctx.trx, {
        ...fields,
        custom_fields: await importedCustomFields(ctx, 'company', custom_fields, `companies.${i}`),
        account_id: ctx.accountId,
        archived_at: archived ? now : null,
      });
      ctx.remember('companies', key, row.id);
    }
  },
};
