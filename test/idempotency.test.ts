import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { type Api, countRows, describeEachDb, expectProblem } from './helpers.js';

describeEachDb('Idempotency-Key', (ctx) => {
  let api: Api;
  before(async () => {
    api = await ctx.as('client:write client:read');
  });

  it('replays the first answer for the same key and body, creating once', async () => {
    const before = await countRows(ctx.db, 'clients');
    const first = await api.post('/clients', { name: 'Idem' }, { 'idempotency-key': 'k-1' });
    assert.equal(first.status, 201);
    const second = await api.post('/clients', { name: 'Idem' }, { 'idempotency-key': 'k-1' });
    assert.equal(second.status, 201);
    assert.deepEqual(second.body, first.body);
    assert.equal(second.headers.location, first.headers.location);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.equal(await countRows(ctx.db, 'clients'), before + 1);
  });

  it('refuses the same key with another body (422) and keeps keys per integration', async () => {
    await api.post('/clients', { name: 'A' }, { 'idempotency-key': 'k-2' });
    expectProblem(
      await api.post('/clients', { name: 'B' }, { 'idempotency-key': 'k-2' }),
      422,
      'idempotency_key_reused',
    );
    const otherIntegration = await ctx.as('client:write');
    const res = await otherIntegration.post('/clients', { name: 'B' }, { 'idempotency-key': 'k-2' });
    assert.equal(res.status, 201);
    assert.equal(res.body.data.name, 'B');
  });

  it('replays refusals too, and a key older than 24 h starts afresh', async () => {
    const bad = await api.post('/clients', { name: '' }, { 'idempotency-key': 'k-3' });
    assert.equal(bad.status, 422);
    const again = await api.post('/clients', { name: '' }, { 'idempotency-key': 'k-3' });
    assert.equal(again.status, 422);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    expectProblem(
      await api.post('/clients', { name: 'Fixed' }, { 'idempotency-key': 'k-3' }),
      422,
      'idempotency_key_reused',
    );

    await api.post('/clients', { name: 'Old' }, { 'idempotency-key': 'k-4' });
    await ctx.db
      .updateTable('idempotency_keys')
      .set({ created_at: new Date(Date.now() - 25 * 3600 * 1000).toISOString() })
      .where('key', '=', 'k-4')
      .execute();
    const fresh = await api.post('/clients', { name: 'Old' }, { 'idempotency-key': 'k-4' });
    assert.equal(fresh.status, 201);
    assert.equal(fresh.headers['idempotent-replayed'], undefined);
  });
});
