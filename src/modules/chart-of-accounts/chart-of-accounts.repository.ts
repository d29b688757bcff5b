import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/index.js';
import { findOwned } from '../../shared/owned.js';
import { paginate } from '../../shared/paging.js';
import { containsAny } from '../../shared/search.js';
import type { ChartOfAccountListQuery } from './chart-of-accounts.schemas.js';
import type { ChartOfAccountTable } from './chart-of-accounts.tables.js';

export type ChartOfAccountRow = Selectable<ChartOfAccountTable>;

export const findChartOfAccount = (db: Db, accountId: number, id: number) =>
  findOwned(db, 'chart_of_accounts', accountId, id);

export function listChartOfAccounts(db: Db, accountId: number, q: ChartOfAccountListQuery) {
  let qb = db.selectFrom('chart_of_accounts').selectAll().where('account_id', '=', accountId);
  if (q.number !== undefined) qb = qb.where('number', '=', q.number);
  if (q.type !== undefined) qb = qb.where('type', '=', q.type);
  if (q.q) qb = qb.where((eb) => containsAny(eb, ['number', 'name'], q.q!));
  return paginate(qb.orderBy('id'), q);
}

export async function insertChartOfAccount(db: Db, values: Insertable<ChartOfAccountTable>): Promise<number> {
  const row = await db
    .insertInto('chart_of_accounts')
    .values(values)
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
