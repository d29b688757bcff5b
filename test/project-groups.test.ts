import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { type Api, describeEachDb, expectProblem } from './helpers.js';
import { seedWork, type WorkFixture } from './work.fixtures.js';

describeEachDb('project groups', (ctx) => {
  let w: WorkFixture;
  let none: Api;

  before(async () => {
    w = await seedWork(ctx);
    none = await ctx.as([]);
  });

  it('lists project groups with any token, pages and searches', async () => {
    const res = await none.get('/project-groups');
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.data.map((g: { id: number; name: string; description: string | null }) => [
        g.id,
        g.name,
        g.description,
      ]),
      [
        [w.groups.retainer, 'Retainer', null],
        [w.groups.fixed, 'Fixed price', null],
      ],
    );
    const page = await none.get('/project-groups?per_page=1&page=2');
    assert.deepEqual(page.body.meta, { page: 2, per_page: 1, total: 2 });
    assert.equal(page.body.data[0].id, w.groups.fixed);
    assert.deepEqual(
      (await none.get('/project-groups?q=fixed')).body.data.map((g: { id: number }) => g.id),
      [w.groups.fixed],
    );
  });

  it('401 without token, 422 on bad input, other accounts see none of them', async () => {
    expectProblem(await ctx.anon.get('/project-groups'), 401, 'unauthorized');
    expectProblem(await none.get('/project-groups?updated_since=yesterday'), 422, 'validation_failed');
    const stranger = await ctx.as([], { accountId: ctx.other.accountId });
    assert.deepEqual((await stranger.get('/project-groups')).body.data, []);
  });
});
