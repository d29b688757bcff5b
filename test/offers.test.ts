import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { importData } from '../src/import/index.js';
import { type Api, describeEachDb, expectProblem } from './helpers.js';

describeEachDb('offers', (ctx) => {
  let reader: Api;
  let ids: number[];

  before(async () => {
    await importData(
      ctx.db,
      {
        clients: [{ key: 'acme', name: 'ACME', currency: 'USD' }],
        projects: [{ key: 'relaunch', client: 'acme', name: 'Relaunch project' }],
        offers: [
          {
            offer_number: 'AN-1',
            status: 'sent',
            client: 'acme',
            project: 'relaunch',
            title: 'Relaunch',
            date: '2026-03-02',
            valid_until: '2026-04-01',
            intro_text: 'We offer:',
            line_items: [
              { title: 'Design', quantity: 1, unit_price: 33.33, tax_rate: 19 },
              { title: 'Code', quantity: 1, unit_price: 33.33, tax_rate: 19 },
              { title: 'Print', quantity: 1.5, unit: 'h', unit_price: 33.33, tax_rate: 7, discount: 10 },
            ],
          },
          { offer_number: 'AN-2', date: '2026-05-01', line_items: [] },
        ],
      },
      { accountId: ctx.account.accountId },
    );
    await importData(
      ctx.db,
      { offers: [{ offer_number: 'THEIRS', line_items: [] }] },
      { accountId: ctx.other.accountId },
    );
    reader = await ctx.as('offer:read');
    ids = (await reader.get('/offers')).body.data.map((o: any) => o.id);
  });

  it('lists offers with totals, filters and paging', async () => {
    const res = await reader.get('/offers');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.meta, { page: 1, per_page: 50, total: 2 });
    const [a, b] = res.body.data;
    assert.equal(a.offer_number, 'AN-1');
    assert.equal(a.status, 'sent');
    assert.equal(a.currency, 'USD', 'currency from the client');
    assert.equal(b.status, 'created');
    assert.equal(b.currency, 'EUR');
    assert.deepEqual([b.net_total, b.gross_total, b.taxes], [0, 0, []]);
    const only = async (q: string) =>
      (await reader.get(`/offers?${q}`)).body.data.map((o: any) => o.offer_number);
    assert.deepEqual(await only('status=sent'), ['AN-1']);
    assert.deepEqual(await only('date_from=2026-04-01'), ['AN-2']);
    assert.deepEqual(await only('date_to=2026-04-01'), ['AN-1']);
    assert.deepEqual(await only(`client_id=${a.client_id}`), ['AN-1']);
    assert.ok(a.project_id);
    assert.equal(b.project_id, null);
    assert.deepEqual(await only(`project_id=${a.project_id}`), ['AN-1']);
    assert.deepEqual(await only('per_page=1&page=2'), ['AN-2']);
    expectProblem(await reader.get('/offers?status=maybe'), 422);
  });

  it('reads one offer with exact totals (same rules as invoices) and its line items', async () => {
    const res = await reader.get(`/offers/${ids[0]}`);
    assert.equal(res.status, 200);
    const o = res.body.data;
    assert.equal(o.title, 'Relaunch');
    assert.equal(o.valid_until, '2026-04-01');
    assert.deepEqual(
      o.line_items.map((l: any) => [l.position, l.title, l.net_total]),
      [
        [1, 'Design', 33.33],
        [2, 'Code', 33.33],
        [3, 'Print', 45],
      ],
    );
    assert.deepEqual(o.taxes, [
      { rate: 7, net: 45, tax: 3.15 },
      { rate: 19, net: 66.66, tax: 12.67 },
    ]);
    assert.deepEqual([o.net_total, o.tax_total, o.gross_total], [111.66, 15.82, 127.48]);
    const items = await reader.get(`/offers/${ids[0]}/line-items`);
    assert.deepEqual(items.body.data, o.line_items);
    assert.equal(items.body.meta.total, 3);
  });

  it('401, 403 and 404 (also for another account’s offer)', async () => {
    const none = await ctx.as('outgoing-invoice:read');
    for (const path of [
      '/offers',
      `/offers/${ids[0]}`,
      `/offers/${ids[0]}/line-items`,
      `/offers/${ids[0]}/pdf`,
    ]) {
      expectProblem(await ctx.anon.get(path), 401);
      assert.deepEqual(expectProblem(await none.get(path), 403).required_scopes, ['offer:read']);
    }
    const theirs = (await ctx.db
      .selectFrom('offers')
      .select('id')
      .where('offer_number', '=', 'THEIRS')
      .executeTakeFirst())!;
    for (const path of [
      `/offers/${theirs.id}`,
      `/offers/${theirs.id}/line-items`,
      `/offers/${theirs.id}/pdf`,
    ]) {
      expectProblem(await reader.get(path), 404);
    }
    expectProblem(await reader.get('/offers/999999'), 404);
    assert.ok(!(await reader.get('/offers')).body.data.some((o: any) => o.id === theirs.id));
  });

  it('the import refuses offers with bad line items, naming the field, and imports nothing', async () => {
    const before = (await reader.get('/offers')).body.meta.total;
    await assert.rejects(
      importData(
        ctx.db,
        { offers: [{ line_items: [{ title: 'x', quantity: 0.00001, unit_price: 1, tax_rate: 19 }] }] },
        { accountId: ctx.account.accountId },
      ),
      (e: any) => e.code === 'validation_failed' && e.errors[0].field === 'offers.0.line_items.0.quantity',
    );
    assert.equal((await reader.get('/offers')).body.meta.total, before);
  });
});
