import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { type Api, describeEachDb, expectProblem } from './helpers.js';
import { seedWork, type WorkFixture } from './work.fixtures.js';

describeEachDb('portfolios', (ctx) => {
  let w: WorkFixture;
  let none: Api;

  before(async () => {
    w = await seedWork(ctx);
    none = await ctx.as([]);
  });

  it('lists active portfolios with any token; archived ones with ?archived=true', async () => {
    const res = await none.get('/portfolios');
    assert.equal(res.status, 200);
    assert.equal(res.body.data.length, 1);
    const p = res.body.data[0];
    assert.deepEqual(
      { id: p.id, name: p.name, description: p.description, archived_at: p.archived_at },
      { id: w.portfolios.digital, name: 'Digital', description: 'Web and apps', archived_at: null },
    );
    assert.ok(p.created_at && p.updated_at);
    const all = await none.get('/portfolios?archived=true');
    assert.deepEqual(
      all.body.data.map((x: { id: number }) => x.id),
      [w.portfolios.digital, w.portfolios.old],
    );
    assert.ok(all.body.data[1].archived_at);
    assert.deepEqual(
      (await none.get('/portfolios?archived=true&q=OLD')).body.data.map((x: { id: number }) => x.id),
      [w.portfolios.old],
    );
    assert.equal((await none.get('/portfolios?updated_since=2999-01-01T00:00:00Z')).body.meta.total, 0);
  });

  it('401 without token, 422 on bad paging, other accounts see none of them', async () => {
    expectProblem(await ctx.anon.get('/portfolios'), 401, 'unauthorized');
    expectProblem(await none.get('/portfolios?page=0'), 422, 'validation_failed');
    const stranger = await ctx.as([], { accountId: ctx.other.accountId });
    assert.deepEqual((await stranger.get('/portfolios?archived=true')).body.data, []);
  });
});
