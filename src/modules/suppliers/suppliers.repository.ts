import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../db/index.js';
import { keptTotal } from '../../shared/list-counts.js';
import { findOwned, insertReturning, updateOwned } from '../../shared/owned.js';
import { paginate, type Sortable, unfiltered } from '../../shared/paging.js';
import { containsIndexed } from '../../shared/search.js';
import { toIso } from '../../shared/time.js';
import type { SupplierListQuery } from './suppliers.schemas.js';
import type { SupplierTable } from './suppliers.tables.js';

export type SupplierRow = Selectable<SupplierTable>;

export const findSupplier = (db: Db, accountId: number, id: number) =>
  findOwned(db, 'suppliers', accountId, id);

/** The supplier a document's seller is, by VAT id (case and spaces ignored) or else exact name. */
export async function findSupplierBySeller(
  db: Db,
  accountId: number,
  seller: { vat_id?: string | null; name?: string | null },
) {
  const base = db.selectFrom('suppliers').selectAll().where('account_id', '=', accountId);
  if (seller.vat_id) {
    const vat = seller.vat_id.replace(/\s+/g, '').toUpperCase();
    const rows = await base.where('vat_id', 'is not', null).orderBy('id').execute();
    const hit = rows.find((r) => r.vat_id!.replace(/\s+/g, '').toUpperCase() === vat);
    if (hit) return hit;
  }
  if (seller.name) return base.where('name', '=', seller.name).orderBy('id').executeTakeFirst();
  return undefined;
}

const SUPPLIER_SORTABLE: Sortable = { name: {}, city: { nullable: true }, country_code: { nullable: true } };

export function listSuppliers(db: Db, accountId: number, q: SupplierListQuery) {
  let qb = db.selectFrom('suppliers').selectAll().where('account_id', '=', accountId);
  if (q.updated_since) qb = qb.where('updated_at', '>=', toIso(q.updated_since));
  if (q.q) qb = qb.where(containsIndexed(db, 'suppliers', ['name', 'vat_id', 'email', 'external_id'], q.q));
  return paginate(qb, q, {
    sortable: SUPPLIER_SORTABLE,
    total: unfiltered(q) ? keptTotal(db, accountId, 'suppliers', true) : undefined,
  });
}

export const insertSupplier = (db: Db, values: Insertable<SupplierTable>) =>
  insertReturning(db, 'suppliers', values);

export const updateSupplier = (db: Db, accountId: number, id: number, values: Updateable<SupplierTable>) =>
  updateOwned(db, 'suppliers', accountId, id, values);
