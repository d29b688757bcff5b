import type { Db } from '../../db/index.js';
import { changesNothing } from '../../shared/changes.js';
import { orNotFound } from '../../shared/owned.js';
import { nowIso } from '../../shared/time.js';
import type { AuthContext } from '../../shared/tokens.js';
import { requireChartOfAccount } from '../chart-of-accounts/chart-of-accounts.public.js';
import type { SupplierRow } from './suppliers.repository.js';
import * as repo from './suppliers.repository.js';
import type { Supplier, SupplierCreate, SupplierListQuery, SupplierUpdate } from './suppliers.schemas.js';

export function toSupplier(r: SupplierRow): Supplier {
  const { account_id: _a, ...rest } = r;
  return rest;
}

async function checkChartOfAccount(db: Db, auth: AuthContext, id: number | null | undefined) {
  if (id !== null && id !== undefined) await requireChartOfAccount(db, auth.accountId, id);
}

/** The supplier with this id, or undefined (for references from other modules). */
export const findSupplier = (db: Db, accountId: number, id: number): Promise<SupplierRow | undefined> =>
  repo.findSupplier(db, accountId, id);

/** The supplier a document's seller is: by VAT id (case and spaces ignored), else by exact name. */
export const findSupplierBySeller = (
  db: Db,
  accountId: number,
  seller: { vat_id?: string | null; name?: string | null },
): Promise<SupplierRow | undefined> => repo.findSupplierBySeller(db, accountId, seller);

export const listSuppliers = (db: Db, auth: AuthContext, q: SupplierListQuery) =>
  repo.listSuppliers(db, auth.accountId, q);

export const getSupplier = async (db: Db, auth: AuthContext, id: number): Promise<SupplierRow> =>
  orNotFound(await repo.findSupplier(db, auth.accountId, id), 'Supplier');

export async function createSupplier(db: Db, auth: AuthContext, body: SupplierCreate): Promise<SupplierRow> {
  await checkChartOfAccount(db, auth, body.chart_of_account_id);
  return repo.insertSupplier(db, { ...body, account_id: auth.accountId });
}

export async function updateSupplier(db: Db, auth: AuthContext, id: number, body: SupplierUpdate) {
  const current = await getSupplier(db, auth, id);
  await checkChartOfAccount(db, auth, body.chart_of_account_id);
  // A PATCH that changes nothing keeps updated_at (shared rule: src/shared/changes.ts).
  if (changesNothing(current, body)) return current;
  return orNotFound(
    await repo.updateSupplier(db, auth.accountId, id, { ...body, updated_at: nowIso() }),
    'Supplier',
  );
}
