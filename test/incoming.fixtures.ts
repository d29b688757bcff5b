import { importData } from '../src/import/index.js';
import type { TestContext } from './helpers.js';

export interface ChartIds {
  office: number;
  phone: number;
  books: number;
  revenue: number;
  /** An account of the other test account, for isolation tests. */
  otherOffice: number;
}

const CHART = [
  { number: '4930', name: 'Bürobedarf', type: 'expense', tax_rate: 19 },
  { number: '4920', name: 'Telefon', type: 'expense', tax_rate: 19 },
  { number: '4940', name: 'Zeitschriften, Bücher', type: 'expense', tax_rate: 7 },
  { number: '8400', name: 'Erlöse 19 % USt', type: 'revenue', tax_rate: 19, active: false },
];

async function idOf(ctx: TestContext, accountId: number, number: string): Promise<number> {
  const row = await ctx.db
    .selectFrom('chart_of_accounts')
    .select('id')
    .where('account_id', '=', accountId)
    .where('number', '=', number)
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Imports a small SKR03-style chart of accounts into both test accounts (once per db). */
export async function seedChart(ctx: TestContext): Promise<ChartIds> {
  const existing = await ctx.db
    .selectFrom('chart_of_accounts')
    .select('id')
    .where('account_id', '=', ctx.account.accountId)
    .executeTakeFirst();
  if (!existing) {
    await importData(ctx.db, { chart_of_accounts: CHART }, { accountId: ctx.account.accountId });
    await importData(ctx.db, { chart_of_accounts: CHART.slice(0, 1) }, { accountId: ctx.other.accountId });
  }
  return {
    office: await idOf(ctx, ctx.account.accountId, '4930'),
    phone: await idOf(ctx, ctx.account.accountId, '4920'),
    books: await idOf(ctx, ctx.account.accountId, '4940'),
    revenue: await idOf(ctx, ctx.account.accountId, '8400'),
    otherOffice: await idOf(ctx, ctx.other.accountId, '4930'),
  };
}
