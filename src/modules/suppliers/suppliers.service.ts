import type { Db } from '../../db/index.js';
import type { AuthContext } from '../../plugins/auth.js';
import { changesNothing } from '../../shared/changes.js';
import { AppError, notFound } from '../../shared/errors.js';
import { nowIso } from '../../shared/time.js';
import { findChartOfAccount } from '../chart-of-accounts/chart-of-accounts.repository.js';
import type { SupplierRow } from './suppliers.repository.js';
import * as repo from './suppliers.repository.js';
import type { Supplier, SupplierCreate, SupplierListQuery, SupplierUpdate } from './suppliers.schemas.js';

export function toSupplier(r: SupplierRow): Supplier {
  const { account_id: _a, ...rest } = r;
  return rest;
}

async function checkChartOfAccount(db: Db, auth: AuthContext, id: number | null | undefined) {
  if (id === null || id === undefined) return;
  if (!(await findChartOfAccount(db, auth.accountId, id)))
    throw new AppError('invalid_reference', 'chart_of_account_id: no such account', {
      errors: [{ field: 'chart_of_account_id', message: 'no such chart of account' }],
    });
}

export const listSuppliers = (db: Db, auth: AuthContext, q: SupplierListQuery) =>
  repo.listSuppliers(db, auth.accountId, q);

export async function getSupplier(db: Db, auth: AuthContext, id: number): Promise<SupplierRow> {
  const row = await repo.findSupplier(db, auth.accountId, id);
  if (!row) throw notFound('Supplier');
  return row;
}

export async function createSupplier(db: Db, auth: AuthContext, body: SupplierCreate): Promise<SupplierRow> {
  await checkChartOfAccount(db, auth, body.chart_of_account_id);
  return repo.insertSupplier(db, { ...body, account_id: auth.accountId });
}

export async function updateSupplier(db: Db, auth: AuthContext, id: number, body: SupplierUpdate) {
  const current = await getSupplier(db, auth, id);
  await checkChartOfAccount(db, auth, body.chart_of_account_id);
  // A PATCH that changes nothing keeps updated_at (shared rule: src/shared/changes.ts).
  if (changesNothing(current, body)) return current;
  const row = await repo.updateSupplier(db, auth.accountId, id, { ...body, updated_at: nowIso() });
  if (!row) throw notFound('Supplier');
  return row;
}
