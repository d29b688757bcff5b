import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { type Api, countRows, describeEachDb, expectProblem } from './helpers.js';
import { seedWork, type WorkFixture } from './work.fixtures.js';
import { feedOf, seedOtherTenant } from './work-write.fixtures.js';

const line = (unit_price: number, extra: Record<string, unknown> = {}) => ({
  title: 'Design',
  quantity: 1,
  unit_price,
  tax_rate: 19,
  ...extra,
});

describeEachDb('offers: writing (beyond the specification)', (ctx) => {
  let w: WorkFixture;
  let stranger: Awaited<ReturnType<typeof seedOtherTenant>>;
  let writer: Api;
  let reader: Api;

  before(async () => {
    w = await seedWork(ctx);
    stranger = await seedOtherTenant(ctx);
    writer = await ctx.as('offer:write offer:read');
    reader = await ctx.as('offer:read');
  });

  const create = async (extra: Record<string, unknown> = {}) => {
    const res = await writer.post('/offers', {
      client_id: w.clients.alpha,
      title: 'Website',
      line_items: [line(100)],
      ...extra,
    });
    assert.equal(res.status, 201, res.text);
    return res.body.data;
  };

  it('creates an offer with exact totals: 201, Location, GET and the PDF show it', async () => {
    const res = await writer.post('/offers', {
      offer_number: 'AN-100',
      client_id: w.clients.alpha,
      project_id: w.projects.web,
      title: 'Relaunch',
      date: '2026-11-02',
      valid_until: '2026-12-02',
      intro_text: 'As discussed',
      line_items: [line(33.33, { quantity: 3, unit: 'h' }), line(0.1, { quantity: 1.5, discount: 10 })],
    });
    assert.equal(res.status, 201);
    const o = res.body.data;
    assert.equal(res.headers.location, `/api/v1/offers/${o.id}`);
    assert.deepEqual(
      [o.status, o.currency, o.net_total, o.tax_total, o.gross_total, o.invoice_id],
      ['created', 'EUR', 100.13, 19.02, 119.15, null],
    );
    assert.deepEqual(
      o.line_items.map((l: { position: number; net_total: number }) => [l.position, l.net_total]),
      [
        [1, 99.99],
        [2, 0.14],
      ],
    );
    assert.deepEqual((await reader.get(`/offers/${o.id}`)).body.data, o);
    const pdf = await reader.get(`/offers/${o.id}/pdf`);
    assert.equal(pdf.status, 200);
    assert.match(String(pdf.headers['content-type']), /application\/pdf/);
    // The feed shows the new offer.
    const { entries } = await feedOf(reader, 'offer', o.id);
    assert.deepEqual(
      entries.map((c) => c.action),
      ['created'],
    );
  });

  it('PATCH changes fields; line_items replaces every line; the same again writes nothing', async () => {
    const o = await create();
    const res = await writer.patch(`/offers/${o.id}`, {
      status: 'sent',
      title: 'Website, revised',
      line_items: [line(50), line(25, { title: 'Hosting' })],
    });
    assert.equal(res.status, 200);
    assert.deepEqual(
      [res.body.data.status, res.body.data.title, res.body.data.net_total, res.body.data.line_items.length],
      ['sent', 'Website, revised', 75, 2],
    );
    const stored = await ctx.db
      .selectFrom('offer_items')
      .select('title')
      .where('offer_id', '=', o.id)
      .execute();
    assert.deepEqual(
      stored.map((r) => r.title),
      ['Design', 'Hosting'],
      'the old line is gone',
    );
    const same = await writer.patch(`/offers/${o.id}`, {
      title: 'Website, revised',
      line_items: [line(50), line(25, { title: 'Hosting' })],
    });
    assert.equal(same.body.data.updated_at, res.body.data.updated_at);
    const only = await writer.patch(`/offers/${o.id}`, { intro_text: 'Hello' });
    assert.equal(only.body.data.line_items.length, 2, 'lines stay when line_items is left out');
  });

  it('accept and decline: only created or sent offers; 409 offer_not_open otherwise', async () => {
    const a = await create();
    const accepted = await writer.post(`/offers/${a.id}/accept`);
    assert.equal(accepted.status, 200);
    assert.equal(accepted.body.data.status, 'accepted');
    expectProblem(await writer.post(`/offers/${a.id}/accept`), 409, 'offer_not_open');
    expectProblem(await writer.post(`/offers/${a.id}/decline`), 409, 'offer_not_open');
    const d = await create({ status: 'sent' });
    const declined = await writer.post(`/offers/${d.id}/decline`);
    assert.equal(declined.body.data.status, 'declined');
    expectProblem(await writer.post(`/offers/${d.id}/accept`), 409, 'offer_not_open');
    // A declined offer may be reopened, then accepted.
    assert.equal((await writer.patch(`/offers/${d.id}`, { status: 'sent' })).body.data.status, 'sent');
    assert.equal((await writer.post(`/offers/${d.id}/accept`)).body.data.status, 'accepted');
  });

  it('an accepted or invoiced offer cannot be changed or deleted: 409 offer_locked', async () => {
    const a = await create();
    await writer.post(`/offers/${a.id}/accept`);
    expectProblem(await writer.patch(`/offers/${a.id}`, { title: 'x' }), 409, 'offer_locked');
    expectProblem(await writer.patch(`/offers/${a.id}`, { line_items: [] }), 409, 'offer_locked');
    expectProblem(await writer.delete(`/offers/${a.id}`), 409, 'offer_locked');
    // Invoiced (as billing records it): locked, and no longer to be accepted or declined.
    const b = await create();
    const invoicer = await ctx.as('outgoing-invoice:write');
    const inv = await invoicer.post('/outgoing-invoices', {
      client_id: w.clients.alpha,
      line_items: [line(100)],
    });
    assert.equal(inv.status, 201, inv.text);
    await ctx.db.updateTable('offers').set({ invoice_id: inv.body.data.id }).where('id', '=', b.id).execute();
    expectProblem(await writer.patch(`/offers/${b.id}`, { title: 'x' }), 409, 'offer_locked');
    expectProblem(await writer.delete(`/offers/${b.id}`), 409, 'offer_locked');
    expectProblem(await writer.post(`/offers/${b.id}/accept`), 409, 'offer_locked');
    assert.equal((await reader.get(`/offers/${b.id}`)).body.data.invoice_id, inv.body.data.id);
    // Deleting the invoice frees the offer again.
    assert.equal((await invoicer.delete(`/outgoing-invoices/${inv.body.data.id}`)).status, 204);
    assert.equal((await writer.patch(`/offers/${b.id}`, { title: 'free' })).status, 200);
  });

  it('DELETE removes the offer and its lines', async () => {
    const o = await create({ line_items: [line(1), line(2)] });
    assert.equal((await writer.delete(`/offers/${o.id}`)).status, 204);
    expectProblem(await reader.get(`/offers/${o.id}`), 404, 'not_found');
    const left = await ctx.db.selectFrom('offer_items').select('id').where('offer_id', '=', o.id).execute();
    assert.equal(left.length, 0);
    expectProblem(await writer.delete(`/offers/${o.id}`), 404, 'not_found');
  });

  it('401 without a token, 403 without offer:write', async () => {
    const o = await create();
    const reqs = (api: Api) => [
      api.post('/offers', { line_items: [] }),
      api.patch(`/offers/${o.id}`, { title: 'x' }),
      api.delete(`/offers/${o.id}`),
      api.post(`/offers/${o.id}/accept`),
      api.post(`/offers/${o.id}/decline`),
    ];
    for (const res of await Promise.all(reqs(ctx.anon))) expectProblem(res, 401, 'unauthorized');
    for (const res of await Promise.all(reqs(reader))) {
      const p = expectProblem(res, 403, 'insufficient_scope');
      assert.deepEqual(p.required_scopes, ['offer:write']);
    }
  });

  it('another account’s ids: 404 in the path, 422 naming the field in the body', async () => {
    const o = await create();
    const outsider = await ctx.as('offer:write offer:read', { accountId: ctx.other.accountId });
    expectProblem(await outsider.patch(`/offers/${o.id}`, { title: 'x' }), 404, 'not_found');
    expectProblem(await outsider.delete(`/offers/${o.id}`), 404, 'not_found');
    expectProblem(await outsider.post(`/offers/${o.id}/accept`), 404, 'not_found');
    expectProblem(await outsider.post(`/offers/${o.id}/decline`), 404, 'not_found');
    const before = await countRows(ctx.db, 'offers');
    for (const [field, value] of [
      ['client_id', stranger.client],
      ['project_id', stranger.project],
      ['contact_id', stranger.contact],
    ] as const) {
      const p = expectProblem(await writer.post('/offers', { [field]: value }), 422, 'validation_failed');
      assert.deepEqual(
        p.errors!.map((e) => e.field),
        [field],
      );
      const q = expectProblem(await writer.patch(`/offers/${o.id}`, { [field]: value }), 422);
      assert.deepEqual(
        q.errors!.map((e) => e.field),
        [field],
      );
    }
    assert.equal(await countRows(ctx.db, 'offers'), before);
  });

  it('422 on bad input, unknown fields refused', async () => {
    const o = await create();
    for (const bad of [
      { status: 'accepted' },
      { status: 'declined' },
      { currency: 'eur' },
      { date: '2026-12-01', valid_until: '2026-11-01' },
      { line_items: [line(1.001)] },
      { line_items: [{ title: 'x' }] },
      { line_items: [line(1, { extra: true })] },
      { invoice_id: 1 },
      { total: 5 },
    ])
      expectProblem(await writer.post('/offers', bad), 422);
    expectProblem(await writer.patch(`/offers/${o.id}`, {}), 422);
    expectProblem(
      await writer.patch(`/offers/${o.id}`, { valid_until: '2000-01-01', date: '2026-01-01' }),
      422,
    );
    expectProblem(await writer.post('/offers/0/accept'), 422);
  });
});
