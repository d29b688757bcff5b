import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../src/db/index.js';
import { importData } from '../../src/import/index.js';
import { createIntegration } from '../../src/modules/integration/integration.service.js';
import { ALL_SCOPES } from '../../src/shared/scopes.js';
import { camt } from '../bank.fixtures.js';
import { Api, multipart } from '../helpers.js';

/**
 * The data the fuzzer and the reference test aim at: two accounts, each with the demo data
 * plus what the demo does not hold (incoming documents with bookings, comments, a webhook
 * with a delivery, draft, booked and credit invoices with payments, a plan, a file), and the
 * ids of every table per account, so a request can name a real record, another tenant's, or
 * none at all.
 */
export interface World {
  /** Admin token of the main account with every scope. */
  api: Api;
  /** Same for the other tenant. */
  otherApi: Api;
  accountId: number;
  otherAccountId: number;
  /** Ids by table, in the main account and in the other one. */
  own: Record<string, number[]>;
  other: Record<string, number[]>;
  /** Records with a known state, for base requests that need one. */
  named: NamedIds;
  otherNamed: NamedIds;
}

export interface NamedIds {
  draftInvoice: number;
  bookedInvoice: number;
  bookedCredit: number;
  openCredit: number;
  partialPlan: number;
  recurringPlan: number;
  incomingInvoice: number;
  incomingCredit: number;
  booking: number;
  comment: number;
  webhook: number;
  delivery: number;
  task: number;
  project: number;
  phase: number;
  milestone: number;
  epic: number;
  client: number;
  contact: number;
  company: number;
  supplier: number;
  chartAccount: number;
  paymentAccount: number;
  /** The admin the token acts as, and a member of `project`'s team. */
  user: number;
  teamMember: number;
  file: number;
  /** An unmatched bank line of money received, and the statement that brought it. */
  bankTransaction: number;
  bankStatement: number;
  /** A connected IMAP mailbox (never polled: the worker is off in tests). */
  mailbox: number;
  /** A client's SEPA mandate. */
  mandate: number;
}

/** An id no record has, inside the range every database stores. */
export const MISSING_ID = 2_000_000_000;

const demo = JSON.parse(readFileSync(new URL('../../seed/demo.json', import.meta.url), 'utf8'));

function ok<T = any>(res: { status: number; text: string; body: any }, what: string): T {
  if (res.status >= 300) throw new Error(`world seed: ${what}: ${res.status} ${res.text.slice(0, 400)}`);
  return res.body?.data as T;
}

async function first(db: Db, table: string, accountId: number, where: Record<string, unknown> = {}) {
  let qb = (db as any).selectFrom(table).select('id').where('account_id', '=', accountId);
  for (const [k, v] of Object.entries(where)) qb = qb.where(k, '=', v);
  const row = await qb.orderBy('id').executeTakeFirst();
  if (!row) throw new Error(`world seed: no ${table} ${JSON.stringify(where)} in account ${accountId}`);
  return Number(row.id);
}

async function seedAccount(app: FastifyInstance, db: Db, accountId: number, n: number) {
  const file = structuredClone(demo);
  delete file.account;
  for (const u of file.users) u.email = u.email.replace('@', `+w${n}@`);
  await importData(db, file, { accountId });
  // A sale rate, so that the demo's efforts can be billed (POST /outgoing-invoices/from-efforts).
  await (db as any)
    .updateTable('projects')
    .set({ hourly_rate: 9000 })
    .where('account_id', '=', accountId)
    .execute();
  const admin = await (db as any)
    .selectFrom('users')
    .select('id')
    .where('account_id', '=', accountId)
    .where('role', '=', 'admin')
    .orderBy('id')
    .executeTakeFirstOrThrow();
  const created = await createIntegration(db, { name: 'fuzz', scopes: [...ALL_SCOPES], userId: admin.id });
  const api = new Api(app, created.access_token);

  const client = await first(db, 'clients', accountId);
  const project = await first(db, 'projects', accountId);
  const task = await first(db, 'tasks', accountId, { project_id: project });
  const supplier = await first(db, 'suppliers', accountId);
  const chartAccount = await first(db, 'chart_of_accounts', accountId);
  const paymentAccount = await first(db, 'payment_accounts', accountId);
  const line = { title: 'Work', quantity: 2, unit_price: 50, tax_rate: 19 };

  const incoming = ok(
    await api.post('/incoming-invoices', {
      supplier_id: supplier,
      invoice_number: `IN-${n}`,
      date: '2026-04-01',
      gross_total: 119,
      bookings: [{ chart_of_account_id: chartAccount, amount: 119 }],
    }),
    'incoming invoice',
  );
  const incomingCredit = ok(
    await api.post('/incoming-invoices', { document_type: 'Credit', gross_total: 10 }),
    'incoming credit',
  );
  const comment = ok(await api.post('/tasks/comments', { task_id: task, content: 'Hello' }), 'comment');
  const webhook = ok(
    await api.post('/webhooks', { url: `https://hooks.example.com/w${n}`, scopes: ['task:create'] }),
    'webhook',
  );
  const mailbox = ok(
    await api.post('/incoming-mailboxes', {
      host: 'imap.example.com',
      username: `fuzz${n}`,
      password: 'secret',
    }),
    'mailbox',
  );
  // An event after the webhook exists queues a delivery (the worker is off in tests).
  ok(await api.post('/tasks', { project_id: project, name: 'Queued for the webhook' }), 'task');
  const draft = ok(
    await api.post('/outgoing-invoices', { client_id: client, title: 'Draft', line_items: [line] }),
    'draft',
  );
  const booked = ok(
    await api.post('/outgoing-invoices', { client_id: client, title: 'Booked', line_items: [line] }),
    'invoice',
  );
  ok(await api.post(`/outgoing-invoices/${booked.id}/book`, {}), 'book');
  ok(
    await api.post('/payments/outgoing-invoice', {
      invoice_id: booked.id,
      amount: 10,
      date: '2026-05-01',
      payment_account_id: paymentAccount,
    }),
    'payment',
  );
  const credit = ok(
    await api.post('/outgoing-invoices', {
      type: 'credit',
      client_id: client,
      credited_invoice_id: booked.id,
      line_items: [{ ...line, quantity: 1, unit_price: -50 }],
    }),
    'credit',
  );
  ok(await api.post(`/outgoing-invoices/${credit.id}/book`, {}), 'book credit');
  const openCredit = ok(
    await api.post('/outgoing-invoices', {
      type: 'credit',
      client_id: client,
      line_items: [{ ...line, unit_price: -5 }],
    }),
    'open credit',
  );
  const partialPlan = ok(
    await api.post('/outgoing-invoices/partial-plans', { client_id: client, line_items: [line] }),
    'partial plan',
  );
  const recurringPlan = ok(
    await api.post('/outgoing-invoices/recurring-plans', {
      type: 'recurring1',
      client_id: client,
      plan_start: '2026-01-31',
      plan_end: '2026-04-30',
      line_items: [line],
    }),
    'recurring plan',
  );
  // A statement of the demo's bank account with one line of money received that matches
  // nothing by itself.
  const statementFile = camt('053', {
    iban: 'DE02120300000000202051',
    opening: 0,
    from: '2026-05-04',
    to: '2026-05-04',
    entries: [{ booking: '2026-05-04', amount: 100, text: 'unknown payer', ref: `FUZZ-${n}` }],
  });
  const statementUpload = await multipart({ name: 's.xml', type: 'application/xml', data: statementFile });
  const bankStatement = ok(
    await api.request('POST', '/bank-statements', statementUpload.body, statementUpload.headers),
    'bank statement',
  );
  // SEPA: a creditor identifier and a client's mandate (for direct debits), and a credit
  // transfer of an invoice of its own, so that every account has a payment file.
  ok(await api.patch('/account/profile', { sepa_creditor_identifier: 'DE98ZZZ09999999999' }), 'creditor id');
  ok(
    await api.post(`/clients/${client}/sepa-mandates`, {
      reference: `WORLD-${n}`,
      signed_on: '2026-01-02',
      iban: 'DE89370400440532013000',
    }),
    'mandate',
  );
  const toPay = ok(
    await api.post('/incoming-invoices', {
      supplier_id: supplier,
      invoice_number: `IN-T-${n}`,
      gross_total: 10,
    }),
    'incoming invoice to pay',
  );
  ok(
    await api.post('/sepa/credit-transfers', {
      payment_account_id: paymentAccount,
      execution_date: '2099-01-05',
      invoices: [{ incoming_invoice_id: toPay.id }],
    }),
    'credit transfer',
  );
  const upload = await multipart({ name: 'a.txt', type: 'text/plain', data: 'hello' });
  const uploaded = ok(
    await api.request('POST', `/tasks/${task}/upload`, upload.body, upload.headers),
    'upload',
  );

  const named: NamedIds = {
    draftInvoice: draft.id,
    bookedInvoice: booked.id,
    bookedCredit: credit.id,
    openCredit: openCredit.id,
    partialPlan: partialPlan.id,
    recurringPlan: recurringPlan.id,
    incomingInvoice: incoming.id,
    incomingCredit: incomingCredit.id,
    booking: incoming.bookings[0].id,
    comment: comment.id,
    webhook: webhook.id,
    delivery: await first(db, 'webhook_deliveries', accountId),
    task,
    project,
    phase: await first(db, 'project_phases', accountId, { project_id: project }),
    milestone: await first(db, 'project_milestones', accountId, { project_id: project }),
    epic: await first(db, 'project_epics', accountId, { project_id: project }),
    client,
    contact: await first(db, 'contacts', accountId),
    company: await first(db, 'companies', accountId),
    supplier,
    chartAccount,
    paymentAccount,
    user: admin.id,
    teamMember: Number(
      (
        await (db as any)
          .selectFrom('project_members')
          .select('user_id')
          .where('project_id', '=', project)
          .orderBy('user_id')
          .executeTakeFirstOrThrow()
      ).user_id,
    ),
    file: (uploaded.file ?? uploaded).id,
    bankTransaction: await first(db, 'bank_transactions', accountId),
    bankStatement: bankStatement.id,
    mailbox: mailbox.id,
    mandate: await first(db, 'sepa_mandates', accountId),
  };
  return { api, named };
}

/** Every table with an `account_id`, by account: the pools ids are drawn from. */
async function pools(db: Db, accountId: number): Promise<Record<string, number[]>> {
  const out: Record<string, number[]> = {};
  for (const t of await db.introspection.getTables()) {
    const cols = t.columns.map((c) => c.name);
    if (!cols.includes('account_id') || !cols.includes('id')) continue;
    const rows = await (db as any)
      .selectFrom(t.name)
      .select('id')
      .where('account_id', '=', accountId)
      .orderBy('id')
      .limit(50)
      .execute();
    out[t.name] = rows.map((r: { id: number | string }) => Number(r.id));
  }
  out.users = (
    await (db as any).selectFrom('users').select('id').where('account_id', '=', accountId).execute()
  ).map((r: { id: number }) => Number(r.id));
  return out;
}

export async function buildWorld(
  app: FastifyInstance,
  db: Db,
  accounts: { main: number; other: number },
): Promise<World> {
  const main = await seedAccount(app, db, accounts.main, 1);
  const other = await seedAccount(app, db, accounts.other, 2);
  return {
    api: main.api,
    otherApi: other.api,
    accountId: accounts.main,
    otherAccountId: accounts.other,
    own: await pools(db, accounts.main),
    other: await pools(db, accounts.other),
    named: main.named,
    otherNamed: other.named,
  };
}
