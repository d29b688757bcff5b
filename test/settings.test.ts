import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDb, expectProblem } from './helpers.js';

describeEachDb('settings and integration', (ctx) => {
  it('GET /settings/countries lists all of ISO 3166-1 with names', async () => {
    const api = await ctx.as([]);
    const res = await api.get('/settings/countries');
    assert.equal(res.status, 200);
    assert.ok(res.body.data.length >= 249);
    assert.equal(res.body.meta.total, res.body.data.length);
    const de = res.body.data.find((c: { code: string }) => c.code === 'DE');
    assert.deepEqual(de, { code: 'DE', alpha3: 'DEU', numeric: '276', name: 'Germany' });
    const german = await api.get('/settings/countries?lang=de');
    assert.equal(german.body.data.find((c: { code: string }) => c.code === 'DE').name, 'Deutschland');
    expectProblem(await api.get('/settings/countries?lang=xx'), 422);
    expectProblem(await ctx.anon.get('/settings/countries'), 401);
  });

  it('GET /integration describes the calling integration', async () => {
    const api = await ctx.as('client:read user:read');
    const res = await api.get('/integration');
    assert.equal(res.status, 200);
    assert.equal(res.body.data.name, 'test');
    assert.equal(res.body.data.account_id, ctx.account.accountId);
    assert.deepEqual(res.body.data.scopes, ['client:read', 'user:read']);
    assert.ok(res.body.data.client_id);
    assert.ok(!('client_secret' in res.body.data));
  });
});
