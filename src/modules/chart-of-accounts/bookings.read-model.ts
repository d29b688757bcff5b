import type { Db } from '../../db/index.js';
import { paginate } from '../../shared/paging.js';
import type { BookingListQuery } from './chart-of-accounts.schemas.js';

/**
 * Read model of `GET /chart-of-accounts/bookings`: the bookings incoming invoices made on the
 * chart, with their invoice's date. It reads incoming-invoices' tables directly (read only)
 * because the chart is the lower module: incoming invoices and suppliers depend on it, and an
 * import the other way would close a cycle.
 */
export function listBookings(db: Db, accountId: number, q: BookingListQuery) {
  let qb = db
    .selectFrom('incoming_invoice_bookings as b')
    .innerJoin('incoming_invoices as i', 'i.id', 'b.incoming_invoice_id')
    .selectAll('b')
    .select('i.date')
    .where('b.account_id', '=', accountId);
  if (q.chart_of_account_id !== undefined) qb = qb.where('b.chart_of_account_id', '=', q.chart_of_account_id);
  if (q.incoming_invoice_id !== undefined) qb = qb.where('b.incoming_invoice_id', '=', q.incoming_invoice_id);
  if (q.date_from) qb = qb.where('i.date', '>=', q.date_from);
  if (q.date_to) qb = qb.where('i.date', '<=', q.date_to);
  return paginate(qb.orderBy('b.id'), q);
}

export type ChartBookingRow = Awaited<ReturnType<typeof listBookings>>['rows'][number];
