import { type SelectQueryBuilder, sql } from 'kysely';
import type { Db } from '../../db/index.js';
import { documentTotals } from '../../shared/money.js';

/**
 * What the DATEV export and the reports read of the books, across the modules that keep
 * them: booked outgoing invoices and credits, payments received, bookings and payments of
 * incoming invoices, and the clients and suppliers behind them. Read only, in one place,
 * because the exports module sits above all of those (they call its period lock, so it
 * cannot import them). Every list is in a fixed order, so an export of unchanged books is
 * the same file.
 */

/** Where a read looks: the account's rows, optionally dated from–to (either end open) or by ids. */
interface Scope {
  /** The table's account column (`p.account_id` when aliased). */
  account: string;
  dated?: { column: string; from?: string; to: string };
  ids?: { column: string; values: number[] };
}

/**
 * The one shape of every read here: the account's rows, dated in a range or named by id. A
 * read by no ids reads nothing (SQL has no empty IN list).
 */
// biome-ignore lint/suspicious/noExplicitAny: any table of any query: the filters name columns by reference.
function scoped<QB extends SelectQueryBuilder<any, any, any>>(qb: QB, accountId: number, s: Scope): QB {
  let q = qb.where(sql.ref(s.account), '=', accountId);
  if (s.dated?.from !== undefined) q = q.where(sql.ref(s.dated.column), '>=', s.dated.from);
  if (s.dated) q = q.where(sql.ref(s.dated.column), '<=', s.dated.to);
  if (s.ids) q = q.where(sql.ref(s.ids.column), 'in', s.ids.values);
  return q as QB;
}

/** The rows of a read by ids: none without ids, else the query's. */
const byIds = <T>(ids: number[], run: () => Promise<T[]>): Promise<T[]> =>
  ids.length === 0 ? Promise.resolve([]) : run();

const DOCUMENT_COLUMNS = [
  'id',
  'type',
  'invoice_number',
  'date',
  'due_date',
  'currency',
  'client_id',
  'document',
  'buyer',
  'seller',
  'lines_taxes',
  'tax_exemption_category',
] as const;

/**
 * An invoice made elsewhere keeps no frozen document; its amounts are its lines' totals per
 * rate (`lines_taxes`, written with the lines). A row without them (written around the
 * application) gets its lines added up here, as the invoices' own reads do, so every
 * document read here has a tax breakdown.
 */
async function withLineTaxes<T extends { id: number; document: string | null; lines_taxes: string | null }>(
  db: Db,
  accountId: number,
  rows: T[],
): Promise<T[]> {
  const ids = rows.filter((r) => r.document === null && r.lines_taxes === null).map((r) => r.id);
  if (ids.length === 0) return rows;
  const items = await db
    .selectFrom('outgoing_invoice_items')
    .select(['invoice_id', 'net_total', 'tax_rate'])
    .$call((q) => scoped(q, accountId, { account: 'account_id', ids: { column: 'invoice_id', values: ids } }))
    .orderBy('id')
    .execute();
  const lines = new Map<number, { net: number; tax_rate: string }[]>();
  for (const i of items) {
    const list = lines.get(i.invoice_id) ?? [];
    list.push({ net: Number(i.net_total), tax_rate: i.tax_rate });
    lines.set(i.invoice_id, list);
  }
  const missing = new Set(ids);
  return rows.map((r) =>
    missing.has(r.id)
      ? { ...r, lines_taxes: JSON.stringify(documentTotals(lines.get(r.id) ?? []).taxes) }
      : r,
  );
}

/**
 * Booked outgoing documents (invoices, credits, deposits, partial and final invoices, and
 * invoices made elsewhere) dated in the range.
 */
export async function bookedDocuments(db: Db, accountId: number, from: string, to: string) {
  const rows = await db
    .selectFrom('outgoing_invoices')
    .select(DOCUMENT_COLUMNS)
    .where('status', '=', 'booked')
    .where('deleted_at', 'is', null)
    .$call((q) => scoped(q, accountId, { account: 'account_id', dated: { column: 'date', from, to } }))
    .orderBy('date')
    .orderBy('id')
    .execute();
  return withLineTaxes(db, accountId, rows);
}

export type BookedDocumentRow = Awaited<ReturnType<typeof bookedDocuments>>[number];

/** Outgoing documents by id (the invoices paid, for the cash-method VAT). */
export function bookedDocumentsById(db: Db, accountId: number, ids: number[]): Promise<BookedDocumentRow[]> {
  return byIds(ids, async () =>
    withLineTaxes(
      db,
      accountId,
      await db
        .selectFrom('outgoing_invoices')
        .select(DOCUMENT_COLUMNS)
        .$call((q) => scoped(q, accountId, { account: 'account_id', ids: { column: 'id', values: ids } }))
        .orderBy('id')
        .execute(),
    ),
  );
}

/** Money received for invoices (not credits offset against them), dated in the range. */
export function paymentsReceived(db: Db, accountId: number, from: string, to: string) {
  return db
    .selectFrom('payments as p')
    .innerJoin('outgoing_invoices as i', 'i.id', 'p.invoice_id')
    .select([
      'p.id',
      'p.amount',
      'p.date',
      'p.currency',
      'p.invoice_id',
      'i.invoice_number',
      'i.client_id',
      'i.buyer',
    ])
    .where('p.type', '=', 'outgoing_invoice')
    .$call((q) => scoped(q, accountId, { account: 'p.account_id', dated: { column: 'p.date', from, to } }))
    .orderBy('p.date')
    .orderBy('p.id')
    .execute();
}

/** Bookings of incoming invoices dated in the range, with their expense account's number. */
export function incomingBookings(db: Db, accountId: number, from: string, to: string) {
  return db
    .selectFrom('incoming_invoice_bookings as b')
    .innerJoin('incoming_invoices as i', 'i.id', 'b.incoming_invoice_id')
    .innerJoin('chart_of_accounts as c', 'c.id', 'b.chart_of_account_id')
    .leftJoin('suppliers as s', 's.id', 'i.supplier_id')
    .select((eb) => [
      eb.fn.coalesce('s.name', 'i.supplier_name').as('supplier_name'),
      'b.id',
      'b.amount',
      'b.tax_rate',
      'c.number as expense',
      'i.id as invoice_id',
      'i.invoice_number',
      'i.date',
      'i.document_type',
      'i.supplier_id',
      'i.supplier_country',
      'i.supplier_vat_id',
      'i.file_id',
    ])
    .$call((q) => scoped(q, accountId, { account: 'b.account_id', dated: { column: 'i.date', from, to } }))
    .orderBy('i.date')
    .orderBy('b.id')
    .execute();
}

/** Payments made on incoming invoices (per invoice paid), dated in the range. */
export function paymentsMade(db: Db, accountId: number, from: string, to: string) {
  return db
    .selectFrom('incoming_payments as p')
    .innerJoin('incoming_payment_allocations as a', 'a.incoming_payment_id', 'p.id')
    .innerJoin('incoming_invoices as i', 'i.id', 'a.incoming_invoice_id')
    .leftJoin('suppliers as s', 's.id', 'i.supplier_id')
    .select((eb) => [
      eb.fn.coalesce('s.name', 'i.supplier_name').as('supplier_name'),
      'a.id',
      'a.amount',
      'p.date',
      'i.id as invoice_id',
      'i.invoice_number',
      'i.supplier_id',
    ])
    .where('p.type', '=', 'payment')
    .$call((q) => scoped(q, accountId, { account: 'p.account_id', dated: { column: 'p.date', from, to } }))
    .orderBy('p.date')
    .orderBy('a.id')
    .execute();
}

/** Clients or suppliers by id, with what the Debitoren/Kreditoren file says of them. */
function partiesById(db: Db, table: 'clients' | 'suppliers', accountId: number, ids: number[]) {
  return byIds(ids, () =>
    db
      .selectFrom(table)
      .select(['id', 'name', 'street', 'zip', 'city', 'country_code', 'vat_id', 'email'])
      .$call((q) => scoped(q, accountId, { account: 'account_id', ids: { column: 'id', values: ids } }))
      .orderBy('id')
      .execute(),
  );
}

/** Stored files by id: the names of the incoming invoices' documents (Belegbilder). */
export function filesById(db: Db, accountId: number, ids: number[]) {
  return byIds(ids, () =>
    db
      .selectFrom('files')
      .select(['id', 'name'])
      .$call((q) => scoped(q, accountId, { account: 'account_id', ids: { column: 'id', values: ids } }))
      .orderBy('id')
      .execute(),
  );
}

export const clientsById = (db: Db, accountId: number, ids: number[]) =>
  partiesById(db, 'clients', accountId, ids);

export const suppliersById = (db: Db, accountId: number, ids: number[]) =>
  partiesById(db, 'suppliers', accountId, ids);

/** Booked invoices (not credits) dated up to a day: the candidates of the open items. */
export async function invoicesUpTo(db: Db, accountId: number, asOf: string) {
  const rows = await db
    .selectFrom('outgoing_invoices')
    .select([
      'id',
      'invoice_number',
      'date',
      'due_date',
      'client_id',
      'document',
      'buyer',
      'lines_taxes',
      'tax_exemption_category',
    ])
    .where('status', '=', 'booked')
    .where('deleted_at', 'is', null)
    .where('type', 'in', ['invoice', 'deposit', 'partial', 'final'])
    .$call((q) => scoped(q, accountId, { account: 'account_id', dated: { column: 'date', to: asOf } }))
    .orderBy('id')
    .execute();
  return withLineTaxes(db, accountId, rows);
}

/** What was paid (money and credits) on each invoice up to a day. */
export function paidUpTo(db: Db, accountId: number, asOf: string) {
  return db
    .selectFrom('payments')
    .select((eb) => ['invoice_id', eb.fn.sum<number>('amount').as('paid')])
    .$call((q) => scoped(q, accountId, { account: 'account_id', dated: { column: 'date', to: asOf } }))
    .groupBy('invoice_id')
    .execute();
}

/**
 * The dunning letters whose fee and interest were invoiced (POST /dunnings/{id}/invoice-charges),
 * by that invoice: damages, not a supply, so they are booked on the fee and interest accounts
 * and stay out of the VAT return.
 */
export function dunningCharges(db: Db, accountId: number, invoiceIds: number[]) {
  return byIds(invoiceIds, () =>
    db
      .selectFrom('dunning_letters')
      .select(['charges_invoice_id', 'fee', 'flat_fee', 'interest'])
      .$call((q) =>
        scoped(q, accountId, {
          account: 'account_id',
          ids: { column: 'charges_invoice_id', values: invoiceIds },
        }),
      )
      .execute(),
  );
}

/** The ids of those invoices among `invoiceIds`. */
export async function chargeInvoiceIds(
  db: Db,
  accountId: number,
  invoiceIds: number[],
): Promise<Set<number>> {
  return new Set((await dunningCharges(db, accountId, invoiceIds)).map((c) => Number(c.charges_invoice_id)));
}

/** Incoming invoices (not credits) dated up to a day: the candidates of the open payables. */
export function incomingUpTo(db: Db, accountId: number, asOf: string) {
  return db
    .selectFrom('incoming_invoices as i')
    .leftJoin('suppliers as s', 's.id', 'i.supplier_id')
    .select((eb) => [
      'i.id',
      'i.invoice_number',
      'i.date',
      'i.due_date',
      'i.supplier_id',
      'i.gross_total',
      eb.fn.coalesce('s.name', 'i.supplier_name').as('supplier_name'),
    ])
    .where('i.document_type', '=', 'Invoice')
    .$call((q) => scoped(q, accountId, { account: 'i.account_id', dated: { column: 'i.date', to: asOf } }))
    .orderBy('i.id')
    .execute();
}

/** What was paid or set off on each incoming invoice up to a day. */
export function paidIncomingUpTo(db: Db, accountId: number, asOf: string) {
  return db
    .selectFrom('incoming_payment_allocations as a')
    .innerJoin('incoming_payments as p', 'p.id', 'a.incoming_payment_id')
    .select((eb) => ['a.incoming_invoice_id', eb.fn.sum<number>('a.amount').as('paid')])
    .$call((q) => scoped(q, accountId, { account: 'a.account_id', dated: { column: 'p.date', to: asOf } }))
    .groupBy('a.incoming_invoice_id')
    .execute();
}
