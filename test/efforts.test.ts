import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { type Api, describeEachDb, expectProblem } from './helpers.js';
import { seedWork, type WorkFixture } from './work.fixtures.js';

type E = { type: string; date: string; duration_minutes: number; user_id: number };

describeEachDb('efforts', (ctx) => {
  let w: WorkFixture;
  let reader: Api;
  let extended: Api;

  before(async () => {
    w = await seedWork(ctx);
    reader = await ctx.as('efforts:read');
    extended = await ctx.as('efforts:read efforts:extended:read');
  });

  it('lists efforts; admin efforts only with efforts:extended:read', async () => {
    const res = await reader.get('/efforts');
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.data.map((e: E) => [e.date, e.type, e.duration_minutes]),
      [
        ['2026-09-14', 'work', 120],
        ['2026-09-15', 'travel', 60],
        ['2026-10-01', 'work', 240],
      ],
    );
    assert.equal(res.body.meta.total, 3);
    const first = res.body.data[0];
    assert.deepEqual(Object.keys(first).sort(), [
      'billable',
      'created_at',
      'date',
      'description',
      'duration_minutes',
      'hourly_rate',
      'id',
      'project_id',
      'task_id',
      'type',
      'updated_at',
      'user_id',
    ]);
    assert.deepEqual(
      [first.user_id, first.project_id, first.task_id, first.billable, first.description],
      [w.users.member, w.projects.web, null, true, 'wires'],
    );
    assert.equal(res.body.data[1].billable, false);
    const all = await extended.get('/efforts');
    assert.equal(all.body.meta.total, 4);
    const admin = all.body.data.find((e: E) => e.type === 'admin');
    assert.deepEqual([admin.date, admin.project_id, admin.billable], ['2026-09-16', null, false]);
    // Asking for them by type does not reveal them either.
    assert.deepEqual((await reader.get('/efforts?type=admin')).body, {
      data: [],
      meta: { page: 1, per_page: 50, total: 0 },
    });
    assert.equal((await extended.get('/efforts?type=admin')).body.meta.total, 1);
    // efforts:extended:read alone does not open the endpoint.
    const p = expectProblem(await (await ctx.as('efforts:extended:read')).get('/efforts'), 403);
    assert.deepEqual(p.required_scopes, ['efforts:read']);
  });

  it('filters by date range, user, project, task and billable', async () => {
    const q = async (api: Api, query: string) =>
      (await api.get(`/efforts?${query}`)).body.data.map((e: E) => e.date);
    assert.deepEqual(await q(extended, 'date_from=2026-09-15&date_to=2026-09-30'), [
      '2026-09-15',
      '2026-09-16',
    ]);
    assert.deepEqual(await q(reader, 'date_from=2026-09-15&date_to=2026-09-30'), ['2026-09-15']);
    assert.deepEqual(await q(extended, `user_id=${w.users.admin}`), ['2026-09-15', '2026-09-16']);
    assert.deepEqual(await q(reader, `project_id=${w.projects.app}`), ['2026-10-01']);
    assert.deepEqual(await q(reader, 'billable=false'), ['2026-09-15']);
    assert.deepEqual(await q(reader, `task_id=${w.tasks.shop}`), []);
    assert.equal((await reader.get('/efforts?per_page=1&page=3')).body.data[0].date, '2026-10-01');
  });

  it('401, 403 without efforts:read, 422 on bad filters, other accounts see nothing', async () => {
    expectProblem(await ctx.anon.get('/efforts'), 401, 'unauthorized');
    const p = expectProblem(await (await ctx.as([])).get('/efforts'), 403, 'insufficient_scope');
    assert.deepEqual(p.required_scopes, ['efforts:read']);
    const bad = expectProblem(await reader.get('/efforts?date_from=2026-13-01&type=holiday&user_id=0'), 422);
    assert.deepEqual(bad.errors!.map((e) => e.field).sort(), ['date_from', 'type', 'user_id']);
    const stranger = await ctx.as('efforts:read efforts:extended:read', { accountId: ctx.other.accountId });
    assert.equal((await stranger.get('/efforts')).body.meta.total, 0);
  });
});
