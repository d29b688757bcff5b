import { type TProperties, Type } from 'typebox';
import type { ImportContext, ImportSection } from '../../import/context.js';
import { AppError, validationFailed } from '../../shared/errors.js';
import { uniqueExternalIds } from '../../shared/external-id.js';
import { CountryCode, Email } from '../../shared/schemas.js';
import {
  type CustomFieldEntity,
  CustomFieldValuesInput,
  validateCustomFields,
} from '../custom-fields/custom-fields.public.js';
import { insertCompany } from './companies.repository.js';

/** An optional text field of an import item. */
export const Str = (max = 255) => Type.Optional(Type.String({ maxLength: max }));

/** An item of a CRM section: `key` first, then `props`, then notes, custom fields and `archived`. */
export const crmItem = (props: TProperties) =>
  Type.Object(
    {
      key: Type.Optional(
        Type.String({ minLength: 1, description: 'Reference used by later records of the file' }),
      ),
      ...props,
      notes: Str(10000),
      custom_fields: Type.Optional(CustomFieldValuesInput),
      archived: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false },
  );

type Item = Record<string, unknown> & {
  key?: string;
  external_id?: string;
  custom_fields?: Record<string, unknown>;
  archived?: boolean;
};

/** Validated custom field values of one item; errors are re-rooted at the item (`companies.3.…`). */
async function importedCustomFields(
  ctx: ImportContext,
  entity: CustomFieldEntity,
  values: Record<string, unknown> | undefined,
  at: string,
): Promise<string> {
  try {
    return JSON.stringify(await validateCustomFields(ctx.trx, ctx.accountId, entity, values));
  } catch (err) {
    if (!(err instanceof AppError) || !err.errors) throw err;
    throw validationFailed(err.errors.map((e) => ({ field: `${at}.${e.field}`, message: e.message })));
  }
}

/**
 * An import section of CRM records (companies, contacts): external ids unique within the
 * section, custom field values checked, `archived: true` imports the record archived, and its
 * `key` remembered for later sections. `columns` turns the item's own fields into columns
 * (contacts: their company's key into `company_id`); `insert` writes one row.
 */
export function crmSection(spec: {
  key: 'companies' | 'contacts';
  entity: CustomFieldEntity;
  item: ReturnType<typeof crmItem>;
  description: string;
  columns?: (ctx: ImportContext, fields: Record<string, unknown>, i: number) => Record<string, unknown>;
  insert: (ctx: ImportContext, values: Record<string, unknown>) => Promise<{ id: number }>;
}): ImportSection {
  return {
    key: spec.key,
    item: spec.item,
    description: spec.description,
    async run(ctx: ImportContext, items) {
      const list = items as Item[];
      uniqueExternalIds(spec.key, list);
      const now = new Date().toISOString();
      for (const [i, { key, archived, custom_fields, ...fields }] of list.entries()) {
        const row = await spec.insert(ctx, {
          ...(spec.columns ? spec.columns(ctx, fields, i) : fields),
          custom_fields: await importedCustomFields(ctx, spec.entity, custom_fields, `${spec.key}.${i}`),
          account_id: ctx.accountId,
          archived_at: archived ? now : null,
        });
        ctx.remember(spec.key, key, row.id);
      }
    },
  };
}

export const companiesSection = crmSection({
  key: 'companies',
  entity: 'company',
  item: crmItem({
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
  }),
  description:
    'CRM companies. `custom_fields` is an object of scalar values; `archived: true` imports them archived. Contacts refer to them by `key`.',
  insert: (ctx, values) => insertCompany(ctx.trx, values as Parameters<typeof insertCompany>[1]),
});
