import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../db/index.js';
import { keptTotal } from '../../shared/list-counts.js';
import { findOwned, insertReturning } from '../../shared/owned.js';
import { paginate, type Sortable, unfiltered } from '../../shared/paging.js';
import { nowIso, toIso } from '../../shared/time.js';
import { type ParsedLine, positioned } from '../outgoing-invoices/outgoing-invoices.public.js';
import type { OfferListQuery } from './offers.schemas.js';
import type { OfferItemTable, OfferTable } from './offers.tables.js';

export type OfferRow = Selectable<OfferTable>;
export type OfferItemRow = Selectable<OfferItemTable>;

export const findOffer = (db: Db, accountId: number, id: number): Promise<OfferRow | undefined> =>
  findOwned(db, 'offers', accountId, id);

const OFFER_SORTABLE: Sortable = {
  date: { nullable: true },
  offer_number: { nullable: true },
  status: {},
  client_id: { nullable: true },
  valid_until: { nullable: true },
};

export function listOffers(db: Db, accountId: number, q: OfferListQuery) {
  let qb = db.selectFrom('offers').selectAll().where('account_id', '=', accountId);
  if (q.status) qb = qb.where('status', '=', q.status);
  if (q.client_id !== undefined) qb = qb.where('client_id', '=', q.client_id);
  if (q.contact_id !== undefined) qb = qb.where('contact_id', '=', q.contact_id);
  if (q.project_id !== undefined) qb = qb.where('project_id', '=', q.project_id);
  if (q.date_from) qb = qb.where('date', '>=', q.date_from);
  if (q.date_to) qb = qb.where('date', '<=', q.date_to);
  if (q.updated_since) qb = qb.where('updated_at', '>=', toIso(q.updated_since));
  return paginate(qb, q, {
    sortable: OFFER_SORTABLE,
    total: unfiltered(q) ? keptTotal(db, accountId, 'offers', true) : undefined,
  });
}

export function offerItems(db: Db, accountId: number, offerIds: number[]): Promise<OfferItemRow[]> {
  if (offerIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('offer_items')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('offer_id', 'in', offerIds)
    .orderBy('offer_id')
    .orderBy('position')
    .execute();
}

export function offerItemsPage(
  db: Db,
  accountId: number,
  offerId: number,
  q: { page?: number; per_page?: number },
) {
  return paginate(
    db
      .selectFrom('offer_items')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('offer_id', '=', offerId)
      .orderBy('position'),
    q,
  );
}

export function insertOffer(db: Db, values: Insertable<OfferTable>) {
  return db.insertInto('offers').values(values).returning('id').executeTakeFirstOrThrow();
}

/** Adds the lines of a new offer (positions 1…n in the given order). */
export async function insertOfferItems(
  db: Db,
  accountId: number,
  offerId: number,
  lines: readonly ParsedLine[],
): Promise<void> {
  if (lines.length > 0)
    await db
      .insertInto('offer_items')
      .values(positioned(lines, { account_id: accountId, offer_id: offerId }))
      .execute();
}

/**
 * Records the invoice made from an offer, once: only while the offer has none (a concurrent
 * second call updates nothing). True when this call set it.
 */
export async function claimInvoice(db: Db, accountId: number, offerId: number, invoiceId: number) {
  const r = await db
    .updateTable('offers')
    .set({ invoice_id: invoiceId, updated_at: nowIso() })
    .where('account_id', '=', accountId)
    .where('id', '=', offerId)
    .where('invoice_id', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export const insertOfferReturning = (db: Db, values: Insertable<OfferTable>): Promise<OfferRow> =>
  insertReturning(db, 'offers', values);

/**
 * Changes an offer only while it may change (`statuses`, and no invoice made from it): the
 * condition is in the statement, so a concurrent accept or invoice cannot slip in between the
 * check and the write. The row as it is now, or undefined when the condition did not hold.
 */
export const updateOfferWhile = (
  db: Db,
  accountId: number,
  id: number,
  statuses: readonly string[],
  values: Updateable<OfferTable>,
): Promise<OfferRow | undefined> =>
  db
    .updateTable('offers')
    .set(values)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('status', 'in', statuses)
    .where('invoice_id', 'is', null)
    .returningAll()
    .executeTakeFirst();

export async function deleteOfferItems(db: Db, accountId: number, offerId: number): Promise<void> {
  await db
    .deleteFrom('offer_items')
    .where('account_id', '=', accountId)
    .where('offer_id', '=', offerId)
    .execute();
}

/** Deletes an offer that may still change (see `updateOfferWhile`); whether it did. */
export async function deleteOfferWhile(
  db: Db,
  accountId: number,
  id: number,
  statuses: readonly string[],
): Promise<boolean> {
  const r = await db
    .deleteFrom('offers')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('status', 'in', statuses)
    .where('invoice_id', 'is', null)
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}
