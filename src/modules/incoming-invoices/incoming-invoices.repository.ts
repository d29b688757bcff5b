import type { Insertable, Updateable } from 'kysely';
import { type Db, isPostgres } from '../../db/index.js';
import { findOwned, insertReturning, ownedRowQuery, updateOwnedOrThrow } from '../../shared/owned.js';
import { paginate, type Sortable } from '../../shared/paging.js';
import { toIso } from '../../shared/time.js';
import type { BookingRow, InvoiceRow } from './incoming-invoices.mappers.js';
import type { IncomingInvoiceListQuery } from './incoming-invoices.schemas.js';
import type { IncomingInvoiceBookingTable, IncomingInvoiceTable } from './incoming-invoices.tables.js';

export const findInvoice = (db: Db, accountId: number, id: number): Promise<InvoiceRow | undefined> =>
  findOwned(db, 'incoming_invoices', accountId, id);

/** The stored file of a document (undefined: no such document; null: it has no file). */
export async function fileIdOf(db: Db, accountId: number, id: number): Promise<number | null | undefined> {
  const row = await db
    .selectFrom('incoming_invoices')
    .select('file_id')
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row?.file_id;
}

/** Row lock on PostgreSQL so that concurrent payments or bookings see each other's sums. */
export function lockInvoice(db: Db, accountId: number, id: number): Promise<InvoiceRow | undefined> {
  let qb = ownedRowQuery(db, 'incoming_invoices', accountId, id);
  if (isPostgres(db)) qb = qb.forUpdate();
  return qb.executeTakeFirst() as Promise<InvoiceRow | undefined>;
}

const INCOMING_SORTABLE: Sortable = {
  date: { nullable: true },
  due_date: { nullable: true },
  supplier_id: { nullable: true },
  status: {},
};

export function listInvoices(db: Db, accountId: number, q: IncomingInvoiceListQuery) {
  let qb = db.selectFrom('incoming_invoices').selectAll().where('account_id', '=', accountId);
  if (q.document_type) qb = qb.where('document_type', '=', q.document_type);
  if (q.supplier_id !== undefined) qb = qb.where('supplier_id', '=', q.supplier_id);
  if (q.status) qb = qb.where('status', '=', q.status);
  if (q.date_from) qb = qb.where('date', '>=', q.date_from);
  if (q.date_to) qb = qb.where('date', '<=', q.date_to);
  if (q.updated_since) qb = qb.where('updated_at', '>=', toIso(q.updated_since));
  return paginate(qb, q, { sortable: INCOMING_SORTABLE });
}

export async function bookingsOf(db: Db, accountId: number, invoiceIds: number[]) {
  const byInvoice = new Map<number, BookingRow[]>();
  if (invoiceIds.length === 0) return byInvoice;
  const rows = await db
    .selectFrom('incoming_invoice_bookings')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('incoming_invoice_id', 'in', invoiceIds)
    .orderBy('id')
    .execute();
  for (const r of rows) {
    const list = byInvoice.get(r.incoming_invoice_id) ?? [];
    list.push(r);
    byInvoice.set(r.incoming_invoice_id, list);
  }
  return byInvoice;
}

export const insertInvoice = (db: Db, values: Insertable<IncomingInvoiceTable>) =>
  insertReturning(db, 'incoming_invoices', values);

export const updateInvoice = (
  db: Db,
  accountId: number,
  id: number,
  values: Updateable<IncomingInvoiceTable>,
) => updateOwnedOrThrow(db, 'incoming_invoices', accountId, id, values);

export function findByMd5(db: Db, accountId: number, md5: string) {
  return db
    .selectFrom('incoming_invoices')
    .select(['id', 'document_type', 'invoice_number', 'supplier_id', 'date', 'file_id', 'created_at'])
    .where('account_id', '=', accountId)
    .where('file_md5', '=', md5)
    .orderBy('id')
    .execute();
}

export function findBooking(db: Db, accountId: number, invoiceId: number, bookingId: number) {
  return db
    .selectFrom('incoming_invoice_bookings')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('incoming_invoice_id', '=', invoiceId)
    .where('id', '=', bookingId)
    .executeTakeFirst();
}

export function insertBookings(db: Db, rows: Insertable<IncomingInvoiceBookingTable>[]) {
  return rows.length
    ? db.insertInto('incoming_invoice_bookings').values(rows).execute()
    : Promise.resolve([]);
}

export function updateBooking(db: Db, id: number, values: Updateable<IncomingInvoiceBookingTable>) {
  return db.updateTable('incoming_invoice_bookings').set(values).where('id', '=', id).execute();
}

export function deleteBooking(db: Db, id: number) {
  return db.deleteFrom('incoming_invoice_bookings').where('id', '=', id).execute();
}
