import { Type } from 'typebox';
import type { ImportContext, ImportSection } from '../../import/context.js';
import { keyedSection } from '../../shared/keyed-section.js';
import { insertSupplier } from './suppliers.repository.js';
import { SupplierCreate } from './suppliers.schemas.js';

const Item = Type.Object(
  {
    ...SupplierCreate.properties,
    key: Type.Optional(Type.String()),
    chart_of_account: Type.Optional(
      Type.String({ description: 'Key or number of a chart-of-accounts entry' }),
    ),
  },
  { additionalProperties: false },
);

interface Item {
  key?: string;
  chart_of_account?: string;
  chart_of_account_id?: number | null;
  name: string;
  [field: string]: unknown;
}

export const suppliersSection: ImportSection = keyedSection<ImportContext, Item>({
  key: 'suppliers',
  item: Item,
  description:
    'Suppliers of incoming invoices; `chart_of_account` names the default account by key or number.',
  async insert(ctx, s, at) {
    const { key, chart_of_account, chart_of_account_id: _ignored, ...fields } = s;
    const row = await insertSupplier(ctx.trx, {
      ...(fields as { name: string }),
      account_id: ctx.accountId,
      chart_of_account_id: ctx.optionalRef('chart_of_accounts', chart_of_account, `${at}.chart_of_account`),
    });
    return { key, id: row.id };
  },
});
