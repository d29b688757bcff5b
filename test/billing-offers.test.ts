import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { addClient } from './billing.fixtures.js';
import { type Api, countRows, describeEachDb, expectProblem, type TestContext } from './helpers.js';
import { waitFor } from './webhooks.support.js';

const SCOPES = ['outgoing-invoice:write', 'outgoing-invoice:read', 'offer:read'];

/** An offer written straight into the tables (offer writes come with their own endpoints). */
async function addOffer(ctx: TestContext, status: string, accountId = ctx.account.accountId) {
  const clientId = await addClient(ctx.db, accountId);
  const offer = await ctx.db
    .insertInto('offers')
    .values({
      account_id: accountId,
      status,
      client_id: clientId,
      currency: 'EUR',
      title: 'Relaunch offer',
      intro_text: 'As agreed',
    } as never)
    .returning('id')
    .executeTakeFirstOrThrow();
  await ctx.db
    .insertInto('offer_items')
    .values([
      {
        account_id: accountId,
        offer_id: offer.id,
        position: 1,
        title: 'Concept',
        description: 'Workshops',
        quantity: '12.5',
        unit: 'h',
        unit_price: 12000,
        tax_rate: '19',
        discount: null,
        net_total: 150000,
      },
      {
        account_id: accountId,
        offer_id: offer.id,
        position: 2,
        title: 'Licence',
        description: null,
        quantity: '1',
        unit: null,
        unit_price: 33333,
        tax_rate: '7',
        discount: '10',
        net_total: 30000,
      },
    ] as never)
    .execute();
  return { offerId: offer.id, clientId };
}

const offerInvoiceOf = async (ctx: TestContext, offerId: number) =>
  (await ctx.db.selectFrom('offers').select('invoice_id').where('id', '=', offerId).executeTakeFirstOrThrow())
    .invoice_id;

describeEachDb('offers to invoices', (ctx) => {
  let api: Api;
  before(async () => {
    api = await ctx.as([...SCOPES, 'outgoing-invoice:force-delete']);
  });

  it('invoices an accepted offer once: its lines, open; a second call 409; deleting frees it', async () => {
    const { offerId, clientId } = await addOffer(ctx, 'accepted');
    const res = await api.post(`/offers/${offerId}/invoice`, {});
    assert.equal(res.status, 201, res.text);
    const { id, master_id, invoice } = res.body.data;
    assert.equal(res.headers.location, `/api/v1/outgoing-invoices/${id}`);
    assert.equal(master_id, null);
    assert.equal(invoice.id, id);
    assert.equal(invoice.type, 'invoice');
    assert.equal(invoice.status, 'open');
    assert.equal(invoice.client_id, clientId);
    assert.equal(invoice.title, 'Relaunch offer');
    assert.equal(invoice.intro_text, 'As agreed');
    assert.deepEqual(
      invoice.line_items.map((l: Record<string, unknown>) => [
        l.title,
        l.quantity,
        l.unit,
        l.unit_price,
        l.tax_rate,
        l.discount,
        l.net_total,
      ]),
      [
        ['Concept', 12.5, 'h', 120, 19, null, 1500],
        ['Licence', 1, null, 333.33, 7, 10, 300],
      ],
    );
    assert.equal(invoice.net_total, 1800);
    assert.equal(await offerInvoiceOf(ctx, offerId), id);

    const again = expectProblem(
      await api.post(`/offers/${offerId}/invoice`, {}),
      409,
      'offer_already_invoiced',
    );
    assert.match(again.detail, new RegExp(`Offer ${offerId}`));

    assert.equal((await api.delete(`/outgoing-invoices/${id}`)).status, 204);
    assert.equal(await offerInvoiceOf(ctx, offerId), null, 'deleting the invoice frees the offer');
    const second = await api.post(`/offers/${offerId}/invoice`, { as: 'invoice' });
    assert.equal(second.status, 201, second.text);
  });

  it('as a partial plan: a master whose final invoice carries the lines; once', async () => {
    const { offerId } = await addOffer(ctx, 'accepted');
    const res = await api.post(`/offers/${offerId}/invoice`, { as: 'partial_plan' });
    assert.equal(res.status, 201, res.text);
    const { id, master_id, invoice } = res.body.data;
    assert.ok(master_id);
    assert.equal(invoice.type, 'final');
    assert.equal(invoice.master_id, master_id);
    assert.equal(invoice.line_items.length, 2);
    const master = await api.get(`/outgoing-invoices/master/${master_id}`);
    assert.equal(master.status, 200, master.text);
    assert.equal(master.body.data.final_invoice_id, id);
    assert.equal(await offerInvoiceOf(ctx, offerId), master_id);
    expectProblem(await api.post(`/offers/${offerId}/invoice`, {}), 409, 'offer_already_invoiced');
    // Deleting the plan (which takes its final invoice along) frees the offer.
    assert.equal((await api.delete(`/outgoing-invoices/${master_id}`)).status, 204);
    assert.equal(await offerInvoiceOf(ctx, offerId), null);
  });

  it('only an accepted offer: 409 offer_not_accepted, nothing written', async () => {
    for (const status of ['created', 'sent', 'declined']) {
      const { offerId } = await addOffer(ctx, status);
      const before = await countRows(ctx.db, 'outgoing_invoices');
      const p = expectProblem(await api.post(`/offers/${offerId}/invoice`, {}), 409, 'offer_not_accepted');
      assert.match(p.detail, new RegExp(status));
      assert.equal(await countRows(ctx.db, 'outgoing_invoices'), before);
    }
  });

  it('401, 403 per missing scope, 404 for another tenant’s offer, 422 on bad input', async () => {
    const { offerId } = await addOffer(ctx, 'accepted');
    expectProblem(await ctx.anon.post(`/offers/${offerId}/invoice`, {}), 401, 'unauthorized');
    for (const missing of ['outgoing-invoice:write', 'offer:read']) {
      const token = await ctx.as(SCOPES.filter((s) => s !== missing));
      const p = expectProblem(await token.post(`/offers/${offerId}/invoice`, {}), 403, 'insufficient_scope');
      assert.ok(p.required_scopes!.includes(missing));
    }
    const theirs = await addOffer(ctx, 'accepted', ctx.other.accountId);
    expectProblem(await api.post(`/offers/${theirs.offerId}/invoice`, {}), 404, 'not_found');
    expectProblem(await api.post('/offers/2000000000/invoice', {}), 404, 'not_found');
    const bad = expectProblem(await api.post(`/offers/${offerId}/invoice`, { as: 'plan' }), 422);
    assert.equal(bad.errors![0]!.field, 'as');
    expectProblem(await api.post(`/offers/${offerId}/invoice`, { extra: true }), 422);
    assert.equal(await offerInvoiceOf(ctx, offerId), null);
  });

  it('the change feed shows the invoice created and the offer updated', async () => {
    const { offerId } = await addOffer(ctx, 'accepted');
    const feed = await ctx.as([...SCOPES]);
    const start = (await feed.get('/changes?limit=1000')).body.meta.next_cursor;
    const res = await api.post(`/offers/${offerId}/invoice`, {});
    assert.equal(res.status, 201, res.text);
    const wanted = [`outgoing_invoice ${res.body.data.id} created`, `offer ${offerId} updated`];
    let seen: string[] = [];
    // On PostgreSQL the feed holds back what committed while any older transaction of the
    // server still runs (other test files' too): wait for it to pass ours.
    await waitFor(
      'the invoice and the offer in the change feed',
      async () => {
        const changes = (await feed.get(`/changes?limit=1000&after=${encodeURIComponent(start)}`)).body.data;
        seen = changes.map(
          (c: { resource: string; id: number; action: string }) => `${c.resource} ${c.id} ${c.action}`,
        );
        return wanted.every((w) => seen.includes(w));
      },
      30_000,
    );
    for (const w of wanted) assert.ok(seen.includes(w), seen.join(', '));
  });

  it('10 concurrent calls on one offer: one invoice, nine 409', async () => {
    const { offerId, clientId } = await addOffer(ctx, 'accepted');
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => api.post(`/offers/${offerId}/invoice`, {})),
    );
    assert.deepEqual(
      answers.map((a) => a.status).sort(),
      [201, 409, 409, 409, 409, 409, 409, 409, 409, 409],
      answers.map((a) => a.text).join('\n'),
    );
    for (const a of answers.filter((x) => x.status === 409)) expectProblem(a, 409, 'offer_already_invoiced');
    const invoices = await ctx.db
      .selectFrom('outgoing_invoices')
      .select('id')
      .where('client_id', '=', clientId)
      .where('deleted_at', 'is', null)
      .execute();
    assert.equal(invoices.length, 1, 'the losers left no invoice behind');
  });
});
