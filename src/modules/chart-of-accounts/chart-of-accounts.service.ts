import type { Db } from '../../db/index.js';
import type { AuthContext } from '../../plugins/auth.js';
import { notFound } from '../../shared/errors.js';
import type { ChartOfAccountRow } from './chart-of-accounts.repository.js';
import * as repo from './chart-of-accounts.repository.js';
import type { ChartOfAccount } from './chart-of-accounts.schemas.js';

export const rateOut = (rate: string | null): number | null => (rate === null ? null : Number(rate));

export function toChartOfAccount(r: ChartOfAccountRow): ChartOfAccount {
  return {
    id: r.id,
    number: r.number,
    name: r.name,
    type: r.type as ChartOfAccount['type'],
    tax_rate: rateOut(r.tax_rate),
    active: Boolean(r.active),
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/** One account of the chart, as `GET /chart-of-accounts/{id}` answers it. */
export async function getChartOfAccount(db: Db, auth: AuthContext, id: number): Promise<ChartOfAccount> {
  const row = await repo.findChartOfAccount(db, auth.accountId, id);
  if (!row) throw notFound('Chart of account');
  return toChartOfAccount(row);
}
