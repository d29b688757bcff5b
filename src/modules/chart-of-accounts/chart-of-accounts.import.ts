import { Type } from 'typebox';
import type { ImportContext, ImportSection } from '../../import/context.js';
import { keyedSection } from '../../shared/keyed-section.js';
import { insertChartOfAccount } from './chart-of-accounts.repository.js';
import { AccountType, TaxRate } from './chart-of-accounts.schemas.js';

const Item = Type.Object(
  {
    key: Type.Optional(
      Type.String({ description: 'Key for references later in the file (default: number)' }),
    ),
    number: Type.String({ minLength: 1, maxLength: 32 }),
    name: Type.String({ minLength: 1, maxLength: 255 }),
    type: AccountType,
    tax_rate: Type.Optional(TaxRate),
    active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

interface Item {
  key?: string;
  number: string;
  name: string;
  type: string;
  tax_rate?: number;
  active?: boolean;
}

export const chartOfAccountsSection: ImportSection = keyedSection<ImportContext, Item>({
  key: 'chart_of_accounts',
  item: Item,
  description:
    'Chart of accounts (e.g. SKR03): `number`, `name`, `type` (expense, revenue, asset, liability), default `tax_rate`. Referenced later by key or number.',
  insert: async (ctx, a) => ({
    key: a.key ?? a.number,
    id: await insertChartOfAccount(ctx.trx, {
      account_id: ctx.accountId,
      number: a.number,
      name: a.name,
      type: a.type,
      tax_rate: a.tax_rate === undefined ? null : String(a.tax_rate),
      active: a.active === false ? 0 : 1,
    }),
  }),
});
