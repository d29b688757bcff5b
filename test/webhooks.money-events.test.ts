import assert from 'node:assert/strict';
import { after, afterEach, before, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { importData } from '../src/import/index.js';
import { WebhookWorker } from '../src/modules/webhooks/webhooks.worker.js';
import { type Api, describeEachDb } from './helpers.js';
import { ALL_INVOICE_SCOPES, bookNow, freshAccount, line, makeInvoice } from './invoicing.fixtures.js';
import { Receiver, sleep, waitFor } from './webhooks.support.js';

/** Events for money objects (issue 45): invoices, payments and clients written over the API. */
describeEachDb('webhooks: events for invoices, payments and clients', (ctx) => {
  let api: Api;
  let hooks: Api;
  let receiver: Receiver;
  let worker: WebhookWorker | undefined;
  let path = 0;
  let bank: number;
  let accountId: number;

  const register = async (scopes: string[]) => {
    const p = `/money/${++path}`;
    const res = await hooks.post('/webhooks', { url: `${receiver.url}${p}`, scopes });
    assert.equal(res.status, 201, res.text);
    return { ...res.body.data, path: p } as { id: number; signature_secret_key: string; path: string };
  };
  const start = () => {
    worker = new WebhookWorker(ctx.db, ctx.kind, {
      secretKey: ctx.app.config.secretKey,
      allowPrivate: true,
      pollIntervalMs: 10,
    });
    worker.start();
  };
  /** The verified bodies a webhook got, once `n` arrived and a while later (no more came). */
  const received = async (hook: { path: string; signature_secret_key: string }, n: number) => {
    await waitFor(`${n} deliveries`, () => receiver.on(hook.path).length >= n);
    await sleep(150);
    const verifier = new Webhook(hook.signature_secret_key);
    return receiver.on(hook.path).map((r) => verifier.verify(r.body, r.headers) as any);
  };

  before(async () => {
    const fresh = await freshAccount(ctx);
    accountId = fresh.acc.accountId;
    await importData(ctx.db, { payment_accounts: [{ name: 'Bank' }] }, { accountId });
    api = await ctx.as([...ALL_INVOICE_SCOPES, 'client:read'], { userId: fresh.acc.users.admin });
    hooks = await ctx.as(['integration', 'outgoing-invoice:read', 'payments:read', 'client:read'], {
      userId: fresh.acc.users.admin,
    });
    bank = (await api.get('/payment-accounts')).body.data[0].id;
    receiver = await new Receiver().start();
  });
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    await ctx.db.deleteFrom('webhooks').execute();
  });
  after(async () => {
    await receiver.stop();
  });

  it('clients: created, updated, deleted (archived), each once, signed, as the API answers', async () => {
    const hook = await register(['client:create', 'client:update', 'client:delete']);
    const bare = await register(['invoice:create', 'payment:create']);
    const created = await api.post('/clients', { name: 'Hooked client', city: 'Hamburg' });
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id;
    const updated = await api.patch(`/clients/${id}`, { name: 'Hooked client, renamed' });
    assert.equal(updated.status, 200, updated.text);
    // A PATCH that changes nothing records nothing.
    assert.equal((await api.patch(`/clients/${id}`, { name: 'Hooked client, renamed' })).status, 200);
    assert.equal((await api.delete(`/clients/${id}`)).status, 204);
    start();
    const got = await received(hook, 3);
    assert.deepEqual(
      got.map((b) => b.event),
      ['client:created', 'client:updated', 'client:deleted'],
    );
    assert.deepEqual(got[0].data, created.body.data);
    assert.deepEqual(got[1].data, updated.body.data);
    assert.equal(got[2].data.id, id);
    assert.ok(got[2].data.archived_at);
    assert.equal(receiver.on(bare.path).length, 0);
  });

  it('invoices: created, booked, deleted and a payment, each once, signed', async () => {
    const hook = await register(['invoice:create', 'invoice:book', 'invoice:delete', 'payment:create']);
    const bare = await register(['client:update', 'client:delete']);
    const client = await api.post('/clients', {
      name: 'Paying client',
      street: 'Kundenweg 7',
      zip: '20095',
      city: 'Hamburg',
      country_code: 'DE',
    });
    assert.equal(client.status, 201, client.text);
    const dated = {
      date: '2026-03-02',
      service_period_start: '2026-03-01',
      service_period_end: '2026-03-01',
    };
    const invoice = await makeInvoice(api, {
      client_id: client.body.data.id,
      ...dated,
      line_items: [line(100)],
    });
    const booked = await bookNow(api, invoice.id);
    const paid = await api.post('/payments/outgoing-invoice', {
      invoice_id: invoice.id,
      amount: 30,
      date: '2026-04-01',
      payment_account_id: bank,
    });
    assert.equal(paid.status, 201, paid.text);
    const draft = await makeInvoice(api, { client_id: client.body.data.id, line_items: [line(5)] });
    assert.equal((await api.delete(`/outgoing-invoices/${draft.id}`)).status, 204);
    start();
    const got = await received(hook, 5);
    assert.deepEqual(
      got.map((b) => [b.event, b.data.id]),
      [
        ['invoice:created', invoice.id],
        ['invoice:booked', invoice.id],
        ['payment:created', paid.body.data.id],
        ['invoice:created', draft.id],
        ['invoice:deleted', draft.id],
      ],
    );
    assert.deepEqual(got[0].data, invoice);
    assert.deepEqual(got[1].data, booked);
    assert.equal(got[1].data.status, 'booked');
    assert.deepEqual(got[2].data, (await api.get(`/payments/${paid.body.data.id}`)).body.data);
    assert.ok(got[4].data.deleted_at);
    assert.equal(new Set(got.map((b) => b.id)).size, 5);
    // Subscribed to other kinds: nothing of this.
    assert.equal(receiver.on(bare.path).length, 0);
  });

  it('invoices a plan generates: invoice:created for each, as its GET answers', async () => {
    const client = await api.post('/clients', { name: 'Plan client', city: 'Hamburg', country_code: 'DE' });
    assert.equal(client.status, 201, client.text);
    const hook = await register(['invoice:create']);
    const plan = await api.post('/outgoing-invoices/recurring-plans', {
      type: 'recurring1',
      client_id: client.body.data.id,
      title: 'Hosting',
      plan_start: '2026-01-31',
      plan_end: '2026-02-28',
      line_items: [line(49.9, { title: 'Hosting', unit: 'month' })],
    });
    assert.equal(plan.status, 201, plan.text);
    const made = await api.post(`/outgoing-invoices/${plan.body.data.id}/generate`);
    assert.equal(made.status, 200, made.text);
    const kids = made.body.data.children as { id: number }[];
    assert.equal(kids.length, 2);
    start();
    const got = await received(hook, 2);
    assert.deepEqual(
      got.map((b) => [b.event, b.data.id]),
      kids.map((k) => ['invoice:created', k.id]),
    );
    assert.deepEqual(got[0].data, (await api.get(`/outgoing-invoices/${kids[0]!.id}`)).body.data);
  });

  it('a subscription to a money event needs the scope that reads it', async () => {
    const weak = await ctx.as('integration', { userId: (await freshAccount(ctx)).acc.users.admin });
    for (const scope of ['invoice:book', 'payment:create', 'client:update']) {
      const res = await weak.post('/webhooks', { url: `${receiver.url}/weak`, scopes: [scope] });
      assert.equal(res.status, 403, `${scope}: ${res.text}`);
    }
  });

  it('the change feed has the writes too', async () => {
    const res = await ctx.db
      .selectFrom('change_log')
      .select(['resource', 'action'])
      .where('account_id', '=', accountId)
      .where('resource', 'in', ['client', 'outgoing_invoice', 'payment'])
      .execute();
    const seen = new Set(res.map((r) => `${r.resource}:${r.action}`));
    for (const k of ['client:created', 'client:archived', 'outgoing_invoice:created', 'payment:created'])
      assert.ok(seen.has(k), k);
  });
});
