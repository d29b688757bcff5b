import type { Transaction } from 'kysely';
import { sqlState } from '../../db/faults.js';
import type { Db } from '../../db/index.js';
import { batchable, checkThenWrite, oneStatementFirst, transactionalKind } from '../../db/insert-batch.js';
import type { Database } from '../../db/schema.js';
import { recordEvents } from '../../shared/events.js';
import type { AuthContext } from '../../shared/tokens.js';
import { anySubscribed } from '../webhooks/webhooks.service.js';
import type { InvoiceRow } from './invoices.repository.js';
import * as repo from './invoices.repository.js';
import type { InvoiceCreate } from './invoices.schemas.js';
import { checkReferences, documentDefaults, documentRow } from './invoices.support.js';
import { newView, toInvoice } from './invoices.views.js';
import type { ParsedLine } from './line-items.js';

/**
 * The performance machinery of invoice creates (db/insert-batch.ts), apart from the service:
 * on PostgreSQL creates that arrive together are written as one, and a create that names only
 * its client leaves it to the INSERT.
 */

/** A create as the writes take it: who made it, for its `invoice:created` event. */
type NewInvoice = repo.NewInvoice & { integrationId: number | null };

/** Records `invoice:created` for each new invoice, as its GET answers it, in the create's transaction. */
async function recordCreated(trx: Transaction<Database>, made: Written, inputs: readonly NewInvoice[]) {
  await recordEvents(
    trx,
    made.map(({ row, items }, k) => ({
      accountId: row.account_id,
      kind: 'invoice:created' as const,
      resourceType: 'outgoing_invoice',
      resourceId: row.id,
      data: toInvoice(newView(row, items)),
      integrationId: inputs[k]!.integrationId,
    })),
  );
  return made;
}
type Written = { row: InvoiceRow; items: repo.ItemRow[] }[];

/**
 * Invoice creates on PostgreSQL (db/insert-batch.ts), those that arrive together and one that
 * arrives alone: one statement when they set the same columns and have lines, else one
 * transaction (of four statements). The one statement records no event: where a webhook takes
 * `invoice:created` the transaction writes them.
 */
const CREATES = oneStatementFirst(
  transactionalKind(
    async (trx, i: NewInvoice) => {
      const { values, lines } = await settled(trx, i);
      const made = await repo.insertWithLines(trx, values, lines);
      return (await recordCreated(trx, [made], [i]))[0]!;
    },
    async (trx, invoices: NewInvoice[]) => {
      const all: repo.NewInvoice[] = [];
      for (const i of invoices) all.push(await settled(trx, i));
      return recordCreated(trx, await repo.insertManyWithLines(trx, all), invoices);
    },
  ),
  async (db, invoices: readonly NewInvoice[]) =>
    (await anySubscribed(
      db,
      invoices.map((i) => i.values.account_id),
      'invoice:created',
    ))
      ? undefined
      : repo.insertManyAsOne(db, invoices),
);

/** A new invoice with its defaults taken from its client and account (`NewInvoice.defaults`). */
async function settled(trx: Db, i: repo.NewInvoice): Promise<repo.NewInvoice> {
  if (!i.defaults) return i;
  const found = await checkReferences(trx, i.values.account_id, { client_id: i.values.client_id });
  return { values: Object.assign({}, i.values, documentDefaults(i.defaults, found)), lines: i.lines };
}

/**
 * Whether a create may leave its client to the database (PostgreSQL, outside a transaction):
 * when it names no other record than a client, `insertManyAsOne` takes the defaults from the
 * client's row in the INSERT and the invoice's key to the account's clients refuses one that
 * is not there — no read before the write (issue 15: a round trip and a statement per create).
 */
const clientOnly = (db: Db, body: InvoiceCreate) =>
  batchable(db) && body.contact_id == null && body.project_id == null && body.credited_invoice_id == null;

/**
 * Writes a checked create (`createInvoice` of the service) with its `invoice:created` event:
 * batched on PostgreSQL outside a transaction, else in the caller's transaction or one of its own.
 */
export async function writeCreate(
  db: Db,
  auth: AuthContext,
  body: InvoiceCreate,
  head: Parameters<typeof documentRow>[0],
  lines: ParsedLine[],
  totals: ReturnType<typeof repo.lineTotalsColumns>,
): Promise<Written[number]> {
  const integrationId = auth.integrationId ?? null;
  const written = checkThenWrite(db, CREATES, async (trx): Promise<NewInvoice> => {
    if (clientOnly(trx, body)) {
      const defaults = { currency: body.currency, payment_term_days: body.payment_term_days };
      // Null until the statement takes it from the client or account (`NewInvoice.defaults`).
      const open = {
        currency: (body.currency ?? null) as string,
        payment_term_days: body.payment_term_days ?? null,
      };
      return { values: documentRow(head, body, open, totals), lines, defaults, integrationId };
    }
    const client = await checkReferences(trx, auth.accountId, body);
    return { values: documentRow(head, body, documentDefaults(body, client), totals), lines, integrationId };
  });
  return written.catch(async (err) => {
    // A key refused the write: the client is not the account's, or was deleted meanwhile.
    // The checks name the field (422 `client_id: no such client`); else the key's own error.
    if (sqlState(err) === '23503') await checkReferences(db, auth.accountId, body);
    throw err;
  });
}
