import { sql } from 'kysely';
import type { Db } from '../../db/index.js';
import { prepared, preparedList } from '../../db/prepared.js';
import { findOwned } from '../../shared/owned.js';

/**
 * What outgoing invoices (and offers, through outgoing-invoices.public.ts) read from tables
 * other modules own: the account's currency and settings, the client, contact and project a
 * document names, and what the payments ledger settled on invoices. A read model, not calls
 * through the owning modules' front doors, because:
 * - payments builds on outgoing invoices (recording a payment checks the invoice's open
 *   amount), so invoicing calling the payments module would be a cycle; and an invoice list
 *   reads the settled sums of a whole page in one query (issue 15: no queries per row);
 * - a document checks the ids it refers to as field errors (422 `client_id: no such client`)
 *   and prints the client as it is, inside its own transaction; the clients, contacts and
 *   projects services answer a missing record with a 404 of their own.
 * - dunning builds on outgoing invoices (a letter claims an invoice's open amount), so an
 *   invoice names its dunning letters by reading them here, a page's in one query.
 * Reads only: every write to those tables stays with its module.
 */

const accountById = prepared(1, (db: Db, accountId: number) =>
  db
    .selectFrom('accounts')
    .select(['id', 'name', 'currency', 'country_code', 'settings'])
    .where('id', '=', accountId),
);

/** The account's row as invoicing reads it (currency, country, settings for the profile). */
export async function findAccount(db: Db, accountId: number) {
  const row = (await accountById(db, accountId))[0];
  // The token's own account: gone only if it was deleted under the request.
  if (!row) throw new Error(`account ${accountId} not found`);
  return row;
}

// Two single-table reads by primary key in one statement, not a join: SQLite plans a LEFT
// JOIN of clients by the statistics of its last ANALYZE, and with those of a small table it
// scanned an index of every client for each create (164 invoice creates/s at 200,000 clients,
// against 11,000). A lookup by rowid alone it always plans as one.
const partiesOf = prepared(2, (db: Db, accountId: number, clientId: number) =>
  db
    .selectFrom('accounts')
    .select([
      sql<string>`'account'`.as('source'),
      'id as account_id',
      sql<string | null>`currency`.as('currency'),
      sql<number | null>`null`.as('payment_term_days'),
    ])
    .where('id', '=', accountId)
    .unionAll(
      db
        .selectFrom('clients')
        .select([sql<string>`'client'`.as('source'), 'account_id', 'currency', 'payment_term_days'])
        .where('id', '=', clientId),
    ),
);

/**
 * What a new document takes its defaults from, in one read (issue 15: one round trip, not
 * two): the account's currency and, when `clientId` is one of the account's clients, that
 * client's currency and payment term (`client` undefined: no such client, or none named).
 */
export async function findDocumentParties(db: Db, accountId: number, clientId: number | null | undefined) {
  const rows = await partiesOf(db, accountId, clientId ?? 0);
  const account = rows.find((r) => r.source === 'account');
  // The token's own account: gone only if it was deleted under the request.
  if (!account) throw new Error(`account ${accountId} not found`);
  const client = rows.find((r) => r.source === 'client' && r.account_id === accountId);
  return {
    accountCurrency: account.currency!,
    client: client && { currency: client.currency, payment_term_days: client.payment_term_days },
  };
}

/** The client a document is addressed to: its defaults (currency, terms) and the buyer it prints. */
export const findClientRow = (db: Db, accountId: number, id: number) =>
  findOwned(db, 'clients', accountId, id);

export type ClientRow = NonNullable<Awaited<ReturnType<typeof findClientRow>>>;

/** The name parts of a contact, for the recipient line of documents. */
export function findContactName(db: Db, accountId: number, id: number) {
  return db
    .selectFrom('contacts')
    .select(['title', 'first_name', 'last_name'])
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Whether the account has the project a document names. */
export async function projectExists(db: Db, accountId: number, id: number): Promise<boolean> {
  const row = await db
    .selectFrom('projects')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row !== undefined;
}

/** What payments and credits settled, per invoice (cents). */
export async function settledOn(
  db: Db,
  accountId: number,
  invoiceIds: number[],
): Promise<Map<number, number>> {
  if (invoiceIds.length === 0) return new Map();
  const rows = await paidOn(db, invoiceIds, accountId);
  return new Map(rows.map((r) => [r.invoice_id, Number(r.total)]));
}

// Prepared per number of invoices, as the two below: a list's page reads them on every request.
const paidOn = preparedList(1, (db: Db, invoiceIds: readonly unknown[], accountId: number) =>
  db
    .selectFrom('payments')
    .select((eb) => ['invoice_id', eb.fn.sum<string | number>('amount').as('total')])
    .where('account_id', '=', accountId)
    .where('invoice_id', 'in', invoiceIds as number[])
    .groupBy('invoice_id'),
);

const lettersOf = preparedList(1, (db: Db, invoiceIds: readonly unknown[], accountId: number) =>
  db
    .selectFrom('dunning_letters')
    .select(['id', 'invoice_id', 'number', 'level', 'date', 'status', 'total_due'])
    // `+account_id` keeps the account's index out: with statistics taken while the table was
    // nearly empty, both databases read every letter of the account instead of probing
    // (invoice_id, level) per invoice (see dunning's lettersOf).
    .where(sql<number>`+${sql.ref('account_id')}`, '=', accountId)
    .where('invoice_id', 'in', invoiceIds as number[])
    .orderBy('invoice_id')
    .orderBy('level'),
);

const creditPayments = preparedList(1, (db: Db, creditIds: readonly unknown[], accountId: number) =>
  db
    .selectFrom('payments')
    .select(['credit_id', 'amount'])
    .where('account_id', '=', accountId)
    .where('credit_id', 'in', creditIds as number[]),
);

/** The dunning letters of invoices (every status), by invoice, in level order. */
export async function dunningLettersOf(
  db: Db,
  accountId: number,
  invoiceIds: number[],
): Promise<Map<number, DunningLetterSummary[]>> {
  const by = new Map<number, DunningLetterSummary[]>();
  if (invoiceIds.length === 0) return by;
  const rows = await lettersOf(db, invoiceIds, accountId);
  for (const r of rows) {
    const letter = { ...r, total_due: Number(r.total_due) };
    const list = by.get(r.invoice_id);
    if (list) list.push(letter);
    else by.set(r.invoice_id, [letter]);
  }
  return by;
}

export interface DunningLetterSummary {
  id: number;
  invoice_id: number;
  number: string;
  level: number;
  date: string;
  status: string;
  /** Cents. */
  total_due: number;
}

/** What each credit settled on invoices (cents, positive). */
export async function usedCredits(
  db: Db,
  accountId: number,
  creditIds: number[],
): Promise<Map<number, number>> {
  if (creditIds.length === 0) return new Map();
  const rows = await creditPayments(db, creditIds, accountId);
  return new Map(rows.map((r) => [r.credit_id!, Number(r.amount)]));
}

/**
 * The defaults of documents from another system (the import): the client's currency and
 * payment term, else the account's currency. The account is read once for all documents.
 */
export async function importDefaults(db: Db, accountId: number) {
  const account = await findAccount(db, accountId);
  return async (clientId: number | null) => {
    const client = clientId ? await findClientRow(db, accountId, clientId) : undefined;
    return {
      currency: client?.currency ?? account.currency,
      payment_term_days: client?.payment_term_days ?? null,
    };
  };
}
