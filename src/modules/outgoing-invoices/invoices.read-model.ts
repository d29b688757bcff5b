import type { Db } from '../../db/index.js';
import { prepared } from '../../db/prepared.js';
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

const partiesOf = prepared(2, (db: Db, accountId: number, clientId: number) =>
  db
    .selectFrom('accounts as a')
    .leftJoin('clients as c', (j) => j.onRef('c.account_id', '=', 'a.id').on('c.id', '=', clientId))
    .select([
      'a.currency as account_currency',
      'c.id as client_id',
      'c.currency as client_currency',
      'c.payment_term_days as client_payment_term_days',
    ])
    .where('a.id', '=', accountId),
);

/**
 * What a new document takes its defaults from, in one read (issue 15: one round trip, not
 * two): the account's currency and, when `clientId` is one of the account's clients, that
 * client's currency and payment term (`client` undefined: no such client, or none named).
 */
export async function findDocumentParties(db: Db, accountId: number, clientId: number | null | undefined) {
  const row = (await partiesOf(db, accountId, clientId ?? 0))[0];
  // The token's own account: gone only if it was deleted under the request.
  if (!row) throw new Error(`account ${accountId} not found`);
  return {
    accountCurrency: row.account_currency,
    client:
      row.client_id === null
        ? undefined
        : { currency: row.client_currency, payment_term_days: row.client_payment_term_days },
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
  const rows = await db
    .selectFrom('payments')
    .select((eb) => ['invoice_id', eb.fn.sum<string | number>('amount').as('total')])
    .where('account_id', '=', accountId)
    .where('invoice_id', 'in', invoiceIds)
    .groupBy('invoice_id')
    .execute();
  return new Map(rows.map((r) => [r.invoice_id, Number(r.total)]));
}

/** What each credit settled on invoices (cents, positive). */
export async function usedCredits(
  db: Db,
  accountId: number,
  creditIds: number[],
): Promise<Map<number, number>> {
  if (creditIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('payments')
    .select(['credit_id', 'amount'])
    .where('account_id', '=', accountId)
    .where('credit_id', 'in', creditIds)
    .execute();
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
