/**
 * What SEPA files read from other modules' tables: the supplier's bank account a credit
 * transfer pays to, the clients mandates belong to, the open invoices a direct debit run
 * collects, and whether an incoming invoice is still in transit by a run. Amounts and states the files depend on are read again through the invoice
 * modules' front doors (locked); these reads only find and name.
 */
import type { Db } from '../../db/index.js';

export interface SupplierAccount {
  id: number;
  name: string;
  iban: string | null;
  bic: string | null;
}

/** The suppliers' names and bank accounts, by id. */
export async function supplierAccounts(
  db: Db,
  accountId: number,
  ids: number[],
): Promise<Map<number, SupplierAccount>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('suppliers')
    .select(['id', 'name', 'iban', 'bic'])
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .execute();
  return new Map(rows.map((r) => [r.id, r]));
}

/** The client's name, or undefined when the account has no such client. */
export async function clientName(db: Db, accountId: number, clientId: number): Promise<string | undefined> {
  const row = await db
    .selectFrom('clients')
    .select('name')
    .where('account_id', '=', accountId)
    .where('id', '=', clientId)
    .executeTakeFirst();
  return row?.name;
}

/** Names of clients, by id. */
export async function clientNames(db: Db, accountId: number, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('clients')
    .select(['id', 'name'])
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .execute();
  return new Map(rows.map((r) => [r.id, r.name]));
}

/**
 * Booked EUR invoices (not credits or plan masters) due by `date` (their due date, else their
 * date) of clients with an active mandate, oldest first. Whether anything is open is decided
 * by the caller from the invoice's exact payment state.
 */
export async function dueInvoicesOfMandatedClients(
  db: Db,
  accountId: number,
  date: string,
): Promise<number[]> {
  const rows = await db
    .selectFrom('outgoing_invoices as i')
    .select('i.id')
    .where('i.account_id', '=', accountId)
    .where('i.status', '=', 'booked')
    .where('i.deleted_at', 'is', null)
    .where('i.currency', '=', 'EUR')
    .where('i.type', 'in', ['invoice', 'deposit', 'partial', 'final'])
    .where((eb) =>
      eb.or([eb('i.due_date', '<=', date), eb.and([eb('i.due_date', 'is', null), eb('i.date', '<=', date)])]),
    )
    .where('i.client_id', 'in', (eb) =>
      eb
        .selectFrom('sepa_mandates as m')
        .select('m.client_id')
        .where('m.account_id', '=', accountId)
        .where('m.status', '=', 'active'),
    )
    .orderBy('i.id')
    .execute();
  return rows.map((r) => r.id);
}

/**
 * The incoming invoices among `ids` that are no longer in transit by the run that holds them:
 * paid in full otherwise (by hand, a bank line matched by number) while the transfer waited.
 */
export async function incomingInTransitRuns(
  db: Db,
  accountId: number,
  ids: number[],
): Promise<Map<number, number | null>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('incoming_invoices')
    .select(['id', 'payment_in_transit_run_id'])
    .where('account_id', '=', accountId)
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map((r) => [r.id, r.payment_in_transit_run_id]));
}
