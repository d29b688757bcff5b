import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { type Api, countRows, describeEachDb, expectProblem } from './helpers.js';
import { type ChartIds, seedChart } from './incoming.fixtures.js';

describeEachDb('suppliers', (ctx) => {
  let writer: Api;
  let reader: Api;
  let none: Api;
  let otherWriter: Api;
  let chart: ChartIds;

  before(async () => {
    chart = await seedChart(ctx);
    writer = await ctx.as('incoming-invoice:write incoming-invoice:read');
    reader = await ctx.as('incoming-invoice:read');
    none = await ctx.as([]);
    otherWriter = await ctx.as('incoming-invoice:write incoming-invoice:read', {
      accountId: ctx.other.accountId,
    });
  });

  it('creates, reads and updates a supplier', async () => {
    const res = await writer.post('/suppliers', {
      name: 'Büro Schmidt GmbH',
      street: 'Hauptstraße 5',
      zip: '10115',
      city: 'Berlin',
      country_code: 'DE',
      vat_id: 'DE811111111',
      tax_number: '12/345/67890',
      iban: 'DE02120300000000202051',
      bic: 'BYLADEM1001',
      email: 'rechnung@schmidt.example',
      chart_of_account_id: chart.office,
      payment_term_days: 14,
      notes: 'Pays by SEPA',
      external_id: 'SUP-1',
    });
    assert.equal(res.status, 201);
    const id = res.body.data.id;
    assert.equal(res.headers.location, `/api/v1/suppliers/${id}`);
    assert.equal(res.body.data.chart_of_account_id, chart.office);
    assert.equal(res.body.data.iban, 'DE02120300000000202051');
    assert.equal(res.body.data.external_id, 'SUP-1');
    const got = await reader.get(`/suppliers/${id}`);
    assert.deepEqual(got.body.data, res.body.data);
    const upd = await writer.patch(`/suppliers/${id}`, { payment_term_days: 30, notes: null });
    assert.equal(upd.status, 200);
    assert.equal(upd.body.data.payment_term_days, 30);
    assert.equal(upd.body.data.notes, null);
    assert.equal(upd.body.data.name, 'Büro Schmidt GmbH');
    assert.ok(upd.body.data.updated_at >= res.body.data.updated_at);
  });

  it('lists with q and updated_since', async () => {
    const a = await writer.post('/suppliers', { name: 'Papierwerk Nord', vat_id: 'DE833333333' });
    await writer.post('/suppliers', { name: 'Other Supplies' });
    const byQ = await reader.get('/suppliers?q=papierwerk');
    assert.equal(byQ.status, 200);
    assert.deepEqual(
      byQ.body.data.map((s: { id: number }) => s.id),
      [a.body.data.id],
    );
    const byVat = await reader.get('/suppliers?q=DE8333');
    assert.equal(byVat.body.data.length, 1);
    assert.equal(byVat.body.meta.total, 1);
    const future = await reader.get('/suppliers?updated_since=2999-01-01T00:00:00Z');
    assert.equal(future.body.data.length, 0);
    const past = await reader.get('/suppliers?updated_since=2000-01-01T00:00:00Z&per_page=100');
    assert.ok(past.body.data.length >= 2);
    const otherList = await otherWriter.get('/suppliers');
    assert.ok(!otherList.body.data.some((s: { id: number }) => s.id === a.body.data.id));
  });

  it('401 without token, 403 without the scope', async () => {
    expectProblem(await ctx.anon.get('/suppliers'), 401, 'unauthorized');
    expectProblem(await ctx.anon.post('/suppliers', { name: 'x' }), 401);
    assert.deepEqual(expectProblem(await none.get('/suppliers'), 403).required_scopes, [
      'incoming-invoice:read',
    ]);
    assert.deepEqual(expectProblem(await none.get('/suppliers/1'), 403).required_scopes, [
      'incoming-invoice:read',
    ]);
    assert.deepEqual(expectProblem(await reader.post('/suppliers', { name: 'x' }), 403).required_scopes, [
      'incoming-invoice:write',
    ]);
    assert.deepEqual(expectProblem(await reader.patch('/suppliers/1', { name: 'x' }), 403).required_scopes, [
      'incoming-invoice:write',
    ]);
  });

  it('404 for unknown ids and for another account’s supplier', async () => {
    const mine = await writer.post('/suppliers', { name: 'Mine Only' });
    expectProblem(await otherWriter.get(`/suppliers/${mine.body.data.id}`), 404, 'not_found');
    expectProblem(await otherWriter.patch(`/suppliers/${mine.body.data.id}`, { name: 'Stolen' }), 404);
    expectProblem(await reader.get('/suppliers/999999'), 404);
    assert.equal((await reader.get(`/suppliers/${mine.body.data.id}`)).body.data.name, 'Mine Only');
  });

  it('422 names bad fields and changes nothing', async () => {
    const before = await countRows(ctx.db, 'suppliers');
    const p = expectProblem(
      await writer.post('/suppliers', {
        name: '',
        email: 'nope',
        iban: 'not an iban',
        payment_term_days: -1,
      }),
      422,
      'validation_failed',
    );
    assert.deepEqual(p.errors!.map((e) => e.field).sort(), ['email', 'iban', 'name', 'payment_term_days']);
    const wrongAccount = expectProblem(
      await writer.post('/suppliers', { name: 'X', chart_of_account_id: chart.otherOffice }),
      422,
      'invalid_reference',
    );
    assert.deepEqual(
      wrongAccount.errors!.map((e) => e.field),
      ['chart_of_account_id'],
    );
    assert.equal(await countRows(ctx.db, 'suppliers'), before);
    const s = await writer.post('/suppliers', { name: 'Keep Me' });
    expectProblem(await writer.patch(`/suppliers/${s.body.data.id}`, { name: '' }), 422);
    expectProblem(await writer.patch(`/suppliers/${s.body.data.id}`, {}), 422);
    assert.equal((await reader.get(`/suppliers/${s.body.data.id}`)).body.data.name, 'Keep Me');
  });
});
