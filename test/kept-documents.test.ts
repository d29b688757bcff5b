import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { it } from 'node:test';
import { buildApp } from '../src/app.js';
import {
  type Api,
  createAccount,
  describeEachDb,
  expectProblem,
  type TestContext,
  testConfig,
} from './helpers.js';
import { ALL_INVOICE_SCOPES, bookNow, line, makeClient, makeInvoice } from './invoicing.fixtures.js';

/**
 * Booked documents are served, not rendered (issue 44 point 5): the PDF and the e-invoices of
 * a booked invoice or credit and a dunning letter's PDF are rendered at the first request and
 * kept in `kept_documents`; every later answer is those bytes, also from another app (a
 * restart). Drafts are rendered on every request.
 */
const DUNNING = ['dunning:read', 'dunning:write'];

async function raw(ctx: TestContext, api: Api, path: string): Promise<Buffer> {
  const res = await ctx.app.inject({
    url: `/api/v1${path}`,
    headers: { authorization: `Bearer ${api.token}` },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.rawPayload;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function keptRow(ctx: TestContext, kind: string, id: number, format: string) {
  return ctx.db
    .selectFrom('kept_documents')
    .select(['sha256', 'data', 'content_type', 'filename'])
    .where('kind', '=', kind)
    .where('document_id', '=', id)
    .where('format', '=', format)
    .executeTakeFirst();
}

describeEachDb('booked documents kept once rendered', (ctx) => {
  it('a booked invoice and a credit: PDF, UBL and CII the same bytes on every request and after a restart', async () => {
    const api = await ctx.as(ALL_INVOICE_SCOPES);
    const client = await makeClient(api);
    const invoice = await makeInvoice(api, { client_id: client, line_items: [line(100), line(20)] });
    await bookNow(api, invoice.id);
    const credit = await makeInvoice(api, { type: 'credit', client_id: client, line_items: [line(-50)] });
    await bookNow(api, credit.id);
    const paths = (id: number) => [
      [`/outgoing-invoices/${id}/pdf`, 'pdf', 'application/pdf'],
      [`/outgoing-invoices/${id}/xml`, 'ubl', 'application/xml'],
      [`/outgoing-invoices/${id}/xml?syntax=cii`, 'cii', 'application/xml'],
    ];
    for (const id of [invoice.id, credit.id]) {
      assert.equal(await keptRow(ctx, 'outgoing_invoice', id, 'pdf'), undefined, 'booking renders nothing');
      const first = new Map<string, Buffer>();
      for (const [path, format, type] of paths(id)) {
        const bytes = await raw(ctx, api, path!);
        first.set(path!, bytes);
        const kept = await keptRow(ctx, 'outgoing_invoice', id, format!);
        assert.ok(kept, `${path} kept`);
        assert.equal(kept.sha256, sha256(bytes));
        assert.equal(kept.content_type, type);
        assert.deepEqual(Buffer.from(kept.data), bytes);
      }
      // What the document prints changes: a kept document does not.
      await ctx.db
        .updateTable('outgoing_invoices')
        .set({ document: null, title: 'Changed after the first download' })
        .where('id', '=', id)
        .execute();
      await api.patch(`/clients/${client}`, { name: 'Renamed Client GmbH' });
      for (const [path] of paths(id)) assert.deepEqual(await raw(ctx, api, path!), first.get(path!), path);
      // Another app on the same database, as after a restart.
      const again = await buildApp(testConfig(), { db: ctx.handle, logger: false });
      try {
        await again.ready();
        for (const [path] of paths(id)) {
          const res = await again.inject({
            url: `/api/v1${path}`,
            headers: { authorization: `Bearer ${api.token}` },
          });
          assert.equal(res.statusCode, 200);
          assert.deepEqual(res.rawPayload, first.get(path!), `${path} after a restart`);
        }
      } finally {
        await again.close();
      }
    }
  });

  it('two first downloads at once answer the same bytes, kept once', async () => {
    const api = await ctx.as(ALL_INVOICE_SCOPES);
    const invoice = await makeInvoice(api, { client_id: await makeClient(api), line_items: [line(75)] });
    await bookNow(api, invoice.id);
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => raw(ctx, api, `/outgoing-invoices/${invoice.id}/pdf`)),
    );
    for (const a of answers) assert.deepEqual(a, answers[0]);
    assert.equal((await keptRow(ctx, 'outgoing_invoice', invoice.id, 'pdf'))?.sha256, sha256(answers[0]!));
  });

  it('a draft is rendered on every request and never kept', async () => {
    const api = await ctx.as(ALL_INVOICE_SCOPES);
    const draft = await makeInvoice(api, { client_id: await makeClient(api), line_items: [line(10)] });
    const before = await raw(ctx, api, `/outgoing-invoices/${draft.id}/pdf`);
    assert.equal((await api.patch(`/outgoing-invoices/${draft.id}`, { title: 'A new title' })).status, 200);
    const after = await raw(ctx, api, `/outgoing-invoices/${draft.id}/pdf`);
    assert.notDeepEqual(after, before, 'the draft shows its change');
    assert.equal(await keptRow(ctx, 'outgoing_invoice', draft.id, 'pdf'), undefined);
  });

  it('a deleted booked invoice answers 404 for its kept documents; another account 404', async () => {
    const api = await ctx.as(ALL_INVOICE_SCOPES);
    const invoice = await makeInvoice(api, { client_id: await makeClient(api), line_items: [line(30)] });
    await bookNow(api, invoice.id);
    // Rendered, then read, then answered from the head kept in memory: the deletion is still seen.
    for (let i = 0; i < 3; i++) await raw(ctx, api, `/outgoing-invoices/${invoice.id}/pdf`);
    await raw(ctx, api, `/outgoing-invoices/${invoice.id}/xml`);
    const stranger = await ctx.as(ALL_INVOICE_SCOPES, { accountId: ctx.other.accountId });
    expectProblem(await stranger.get(`/outgoing-invoices/${invoice.id}/pdf`), 404);
    expectProblem(await stranger.get(`/outgoing-invoices/${invoice.id}/xml`), 404);
    assert.equal((await api.request('DELETE', `/outgoing-invoices/${invoice.id}/force`)).status, 204);
    expectProblem(await api.get(`/outgoing-invoices/${invoice.id}/pdf`), 404);
    expectProblem(await api.get(`/outgoing-invoices/${invoice.id}/xml`), 404);
    assert.ok(await keptRow(ctx, 'outgoing_invoice', invoice.id, 'pdf'), 'kept all the same (bookkeeping)');
  });

  it('a dunning letter: rendered once, the same bytes after the client changed', async () => {
    const acc = await createAccount(ctx.db, { payment_accounts: [{ name: 'Bank' }] });
    const api = await ctx.as([...ALL_INVOICE_SCOPES, ...DUNNING], { userId: acc.users.admin });
    const client = await makeClient(api);
    const inv = await makeInvoice(api, {
      client_id: client,
      date: '2026-03-02',
      due_date: '2026-03-16',
      line_items: [line(1000)],
    });
    await bookNow(api, inv.id);
    const run = await api.post('/dunning/run', { date: '2026-03-23' });
    assert.equal(run.status, 200, run.text);
    const [letter] = run.body.data.created;
    const first = await raw(ctx, api, `/dunnings/${letter.id}/pdf`);
    assert.equal((await keptRow(ctx, 'dunning_letter', letter.id, 'pdf'))?.sha256, sha256(first));
    await api.patch(`/clients/${client}`, { name: 'Renamed Client GmbH', street: 'Anderswo 1' });
    assert.deepEqual(await raw(ctx, api, `/dunnings/${letter.id}/pdf`), first);
    const stranger = await ctx.as(DUNNING, { accountId: ctx.other.accountId });
    expectProblem(await stranger.get(`/dunnings/${letter.id}/pdf`), 404);
  });
});
