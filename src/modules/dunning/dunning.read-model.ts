import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql } from 'kysely';
import { type Db, isPostgres } from '../../db/index.js';
import { readInSteps } from '../../shared/collect.js';

/**
 * What the dunning run reads of other modules' tables: booked invoices past their due date
 * with their client's flags, and the days payments were received. Read only, never written;
 * invoice totals come through the outgoing-invoices front door.
 */

/** Kinds of documents that are dunned: invoices and the partial and final invoices of plans. */
const DUNNED_TYPES = ['invoice', 'partial', 'final'];

export interface OverdueInvoice {
  id: number;
  client_id: number | null;
  invoice_number: string | null;
  date: string | null;
  due_date: string;
  currency: string;
  is_consumer: number | null;
  language: string | null;
  client_name: string | null;
}

/**
 * Booked, live invoices whose due date is before `date`, not credited by a booked credit note,
 * of clients the run may dun (not `dunning_blocked`), that may still concern the run: the
 * service asks each one's open amount through the invoices' front door.
 *
 * Left out are the invoices that are settled by their own stored totals and have no open or
 * sent letter: the run would read their state only to find nothing to do (most overdue
 * invoices of a business are paid, and reading their states was most of a run that writes
 * nothing). Only invoices whose open amount is their stored line total less their payments —
 * not final invoices (their deductions), not those without stored totals — are decided here,
 * and as the invoice's state decides them (`paymentState`: open = gross - paid, <= 0 is paid).
 *
 * Read a window of the account's invoices at a time, with a turn of the event loop between:
 * SQLite answers without leaving it, and the whole account in one query held other requests
 * for a third of a second.
 */
export async function overdueInvoices(
  db: Db,
  accountId: number,
  date: string,
  window = isPostgres(db) ? PG_WINDOW : SQLITE_WINDOW,
): Promise<OverdueInvoice[]> {
  const out: OverdueInvoice[] = [];
  for (let after = 0; ; await nextTurn()) {
    // The window ends at the account's `window`-th invoice after the last (an index-only read),
    // so an account whose ids are spread among other accounts' takes no more windows.
    const edge = await db
      .selectFrom('outgoing_invoices')
      .select('id')
      .where('account_id', '=', accountId)
      .where('id', '>', after)
      .orderBy('id')
      .limit(1)
      .offset(window - 1)
      .executeTakeFirst();
    const upTo = edge ? Number(edge.id) : null;
    out.push(...(await overdueIn(db, accountId, date, after, upTo)));
    if (upTo === null) return out;
    after = upTo;
  }
}

/**
 * Invoices of the account per window of `overdueInvoices`: on SQLite about 10 ms of the event
 * loop; PostgreSQL's answers leave it free, and fewer windows cost fewer round trips.
 */
const SQLITE_WINDOW = 5_000;
const PG_WINDOW = 50_000;

/** The invoices of `overdueInvoices` with ids after `after`, up to `upTo` (null: all after). */
function overdueIn(db: Db, accountId: number, date: string, after: number, upTo: number | null) {
  return (
    db
      .selectFrom('outgoing_invoices as i')
      .leftJoin('clients as c', 'c.id', 'i.client_id')
      // What each invoice of the window received, summed as the invoice's state sums it: one
      // grouped read joined to the invoices, not a probe per invoice (on PostgreSQL 90,000 probes
      // also made the planner JIT-compile the query, which took longer than running it).
      .leftJoin(
        (eb) =>
          eb
            .selectFrom('payments as p')
            .select((p) => ['p.invoice_id', p.fn.sum<number>('p.amount').as('paid')])
            .where('p.account_id', '=', accountId)
            .where('p.invoice_id', '>', after)
            .$if(upTo !== null, (qb) => qb.where('p.invoice_id', '<=', upTo!))
            .groupBy('p.invoice_id')
            .as('pp'),
        (join) => join.onRef('pp.invoice_id', '=', 'i.id'),
      )
      .select([
        'i.id',
        'i.client_id',
        'i.invoice_number',
        'i.date',
        'i.due_date',
        'i.currency',
        'c.is_consumer',
        'c.language',
        'c.name as client_name',
      ])
      .where('i.account_id', '=', accountId)
      .where('i.id', '>', after)
      .$if(upTo !== null, (qb) => qb.where('i.id', '<=', upTo!))
      .where('i.status', '=', 'booked')
      .where('i.deleted_at', 'is', null)
      .where('i.type', 'in', DUNNED_TYPES)
      .where('i.due_date', 'is not', null)
      .where('i.due_date', '<', date)
      .where((eb) => eb.or([eb('c.dunning_blocked', 'is', null), eb('c.dunning_blocked', '=', 0)]))
      .where((eb) =>
        eb.or([
          eb('i.type', '=', 'final'),
          eb('i.lines_net', 'is', null),
          eb('i.lines_gross', 'is', null),
          eb('i.lines_taxes', 'is', null),
          eb(eb.fn.coalesce('pp.paid', eb.lit(0)), '<', eb.ref('i.lines_gross')),
          eb.exists(
            eb
              .selectFrom('dunning_letters as l')
              .select('l.id')
              // `+account_id`: probed through the (invoice_id, level) index, never the account's
              // (see dunning's lettersOf).
              .where(sql<number>`+${sql.ref('l.account_id')}`, '=', accountId)
              .whereRef('l.invoice_id', '=', 'i.id')
              .where('l.status', 'in', ['open', 'sent']),
          ),
        ]),
      )
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('outgoing_invoices as cr')
              .select('cr.id')
              .where('cr.account_id', '=', accountId)
              .whereRef('cr.credited_invoice_id', '=', 'i.id')
              .where('cr.type', '=', 'credit')
              .where('cr.status', '=', 'booked')
              .where('cr.deleted_at', 'is', null),
          ),
        ),
      )
      .orderBy('i.id')
      .execute() as Promise<OverdueInvoice[]>
  );
}

/**
 * Payments and credit settlements of the invoices: the day each lowered the open amount (the
 * interest counts by day; the open amount itself comes from the invoice's own state). Any
 * number of ids, read a thousand at a time.
 */
export function reductionsOf(db: Db, accountId: number, invoiceIds: readonly number[]) {
  return readInSteps(invoiceIds, 1000, (ids) =>
    db
      .selectFrom('payments')
      .select(['invoice_id', 'amount', 'date'])
      .where('account_id', '=', accountId)
      .where('invoice_id', 'in', ids)
      .orderBy('invoice_id')
      .orderBy('date')
      .execute(),
  );
}

/** The client of a letter, as the PDF and the levels' texts name it. */
export const clientOf = (db: Db, accountId: number, clientId: number) =>
  db
    .selectFrom('clients')
    .select(['id', 'name', 'language', 'is_consumer', 'dunning_blocked'])
    .where('account_id', '=', accountId)
    .where('id', '=', clientId)
    .executeTakeFirst();

/** Accounts that have no dunning job yet (the scheduled run adds one for each). */
export async function accountsWithoutJob(db: Db): Promise<number[]> {
  const rows = await db
    .selectFrom('accounts as a')
    .select('a.id')
    .where((eb) =>
      eb.not(
        eb.exists(
          eb.selectFrom('dunning_jobs as j').select('j.account_id').whereRef('j.account_id', '=', 'a.id'),
        ),
      ),
    )
    .orderBy('a.id')
    .execute();
  return rows.map((r) => Number(r.id));
}
