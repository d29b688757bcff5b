import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { type Api, countRows, describeEachDb, expectProblem } from './helpers.js';
import { seedWork, type WorkFixture } from './work.fixtures.js';
import { feedOf, seedOtherTenant } from './work-write.fixtures.js';

describeEachDb('projects: writing (beyond the specification)', (ctx) => {
  let w: WorkFixture;
  let stranger: Awaited<ReturnType<typeof seedOtherTenant>>;
  let writer: Api;
  let reader: Api;

  before(async () => {
    w = await seedWork(ctx);
    stranger = await seedOtherTenant(ctx);
    writer = await ctx.as('project:write');
    reader = await ctx.as('task-management:read');
  });

  const feed = (id: number, after?: string, want = 1) => feedOf(reader, 'project', id, after, want);

  it('creates a project with its billing fields: 201, Location, GET shows it', async () => {
    const res = await writer.post('/projects', {
      client_id: w.clients.alpha,
      name: 'Brand book',
      identifier: 'P-100',
      portfolio_id: w.portfolios.digital,
      project_group_ids: [w.groups.fixed],
      start_date: '2026-11-01',
      end_date: '2026-12-31',
      budget_minutes: 3000,
      billing_mode: 'fixed_price',
      hourly_rate: 120.5,
      budget_amount: 9999.99,
      currency: 'EUR',
      custom_fields: { cost_center: 'CC-9' },
    });
    assert.equal(res.status, 201);
    const p = res.body.data;
    assert.equal(res.headers.location, `/api/v1/projects/${p.id}`);
    assert.deepEqual(
      [p.status, p.billable, p.billing_mode, p.hourly_rate, p.budget_amount, p.currency, p.project_group_ids],
      ['active', true, 'fixed_price', 120.5, 9999.99, 'EUR', [w.groups.fixed]],
    );
    assert.deepEqual(p.custom_fields, { cost_center: 'CC-9' });
    const row = await ctx.db
      .selectFrom('projects')
      .select(['hourly_rate', 'budget_amount'])
      .where('id', '=', p.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual([Number(row.hourly_rate), Number(row.budget_amount)], [12050, 999999], 'cents');
    assert.deepEqual((await reader.get(`/projects/${p.id}`)).body.data, p);
  });

  it('the largest budget and rate the schema allows are stored and read back exactly', async () => {
    const { body } = await writer.post('/projects', { client_id: w.clients.beta, name: 'Large budget' });
    const res = await writer.patch(`/projects/${body.data.id}`, {
      budget_amount: 10_000_000_000,
      hourly_rate: 10_000_000,
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual([res.body.data.budget_amount, res.body.data.hourly_rate], [10_000_000_000, 10_000_000]);
    assert.deepEqual((await reader.get(`/projects/${body.data.id}`)).body.data, res.body.data);
  });

  it('PATCH changes the given fields, replaces the groups; the feed shows it', async () => {
    const { body } = await writer.post('/projects', { client_id: w.clients.beta, name: 'Patchable' });
    const id = body.data.id;
    assert.deepEqual(
      [body.data.billing_mode, body.data.hourly_rate, body.data.project_group_ids],
      ['time_and_materials', null, []],
    );
    const { cursor } = await feed(id);
    const res = await writer.patch(`/projects/${id}`, {
      name: 'Patched',
      hourly_rate: 99,
      project_group_ids: [w.groups.retainer, w.groups.fixed],
      status: 'on_hold',
    });
    assert.equal(res.status, 200);
    assert.deepEqual(
      [res.body.data.name, res.body.data.hourly_rate, res.body.data.status],
      ['Patched', 99, 'on_hold'],
    );
    assert.deepEqual(
      res.body.data.project_group_ids,
      [w.groups.retainer, w.groups.fixed].sort((a, b) => a - b),
    );
    assert.deepEqual(
      (await feed(id, cursor)).entries.map((c) => c.action),
      ['updated'],
    );
    // The same values again: nothing written.
    const same = await writer.patch(`/projects/${id}`, { name: 'Patched', hourly_rate: 99 });
    assert.equal(same.body.data.updated_at, res.body.data.updated_at);
    const cleared = await writer.patch(`/projects/${id}`, { hourly_rate: null, project_group_ids: [] });
    assert.deepEqual([cleared.body.data.hourly_rate, cleared.body.data.project_group_ids], [null, []]);
  });

  it('archives (DELETE) and restores; twice changes nothing', async () => {
    const { body } = await writer.post('/projects', { client_id: w.clients.alpha, name: 'Archivable' });
    const id = body.data.id;
    assert.equal((await writer.delete(`/projects/${id}`)).status, 204);
    const archived = await reader.get(`/projects/${id}`);
    assert.ok(archived.body.data.archived_at);
    assert.ok(
      !(await reader.get('/projects?per_page=100')).body.data.some((p: { id: number }) => p.id === id),
    );
    assert.equal((await writer.delete(`/projects/${id}`)).status, 204);
    assert.equal((await reader.get(`/projects/${id}`)).body.data.archived_at, archived.body.data.archived_at);
    const restored = await writer.post(`/projects/${id}/restore`);
    assert.equal(restored.status, 200);
    assert.equal(restored.body.data.archived_at, null);
    const { entries } = await feed(id, undefined, 3);
    assert.deepEqual(
      entries.map((c) => c.action),
      ['created', 'archived', 'restored'],
    );
  });

  it('team: PUT adds or changes a member with role and rate, DELETE removes; the project is updated', async () => {
    const { body } = await writer.post('/projects', { client_id: w.clients.alpha, name: 'Team work' });
    const id = body.data.id;
    const { cursor } = await feed(id);
    const added = await writer.put(`/projects/${id}/team/${w.users.member}`, { hourly_rate: 85.25 });
    assert.equal(added.status, 200);
    assert.deepEqual(
      [
        added.body.data.user_id,
        added.body.data.role,
        added.body.data.hourly_rate,
        added.body.data.first_name,
      ],
      [w.users.member, 'member', 85.25, 'Max'],
    );
    const changed = await writer.put(`/projects/${id}/team/${w.users.member}`, { role: 'lead' });
    assert.deepEqual([changed.body.data.role, changed.body.data.hourly_rate], ['lead', 85.25]);
    const team = await reader.get(`/projects/${id}/team`);
    assert.deepEqual(
      team.body.data.map((m: { user_id: number; role: string; hourly_rate: number }) => [
        m.user_id,
        m.role,
        m.hourly_rate,
      ]),
      [[w.users.member, 'lead', 85.25]],
    );
    assert.equal((await feed(id, cursor, 2)).entries.length, 2, 'each team change updates the project');
    assert.equal((await writer.delete(`/projects/${id}/team/${w.users.member}`)).status, 204);
    assert.equal((await reader.get(`/projects/${id}/team`)).body.meta.total, 0);
    // Not on the team (any more): nothing to do.
    assert.equal((await writer.delete(`/projects/${id}/team/${w.users.member}`)).status, 204);
    assert.equal((await feed(id, cursor, 3)).entries.length, 3);
  });

  it('401 without a token, 403 without project:write', async () => {
    const id = w.projects.web;
    const reqs = (api: Api) => [
      api.post('/projects', { client_id: w.clients.alpha, name: 'x' }),
      api.patch(`/projects/${id}`, { name: 'x' }),
      api.delete(`/projects/${id}`),
      api.post(`/projects/${id}/restore`),
      api.put(`/projects/${id}/team/${w.users.member}`, {}),
      api.delete(`/projects/${id}/team/${w.users.member}`),
    ];
    for (const res of await Promise.all(reqs(ctx.anon))) expectProblem(res, 401, 'unauthorized');
    const all = await ctx.as('task-management:read task-management:write client:write efforts:write');
    for (const res of await Promise.all(reqs(all))) {
      const p = expectProblem(res, 403, 'insufficient_scope');
      assert.deepEqual(p.required_scopes, ['project:write']);
    }
  });

  it('another account’s ids: 404 in the path, 422 naming the field in the body', async () => {
    const outsider = await ctx.as('project:write', { accountId: ctx.other.accountId });
    const id = w.projects.web;
    expectProblem(await outsider.patch(`/projects/${id}`, { name: 'x' }), 404, 'not_found');
    expectProblem(await outsider.delete(`/projects/${id}`), 404, 'not_found');
    expectProblem(await outsider.post(`/projects/${id}/restore`), 404, 'not_found');
    expectProblem(await outsider.put(`/projects/${id}/team/${w.users.member}`, {}), 404, 'not_found');
    expectProblem(await outsider.delete(`/projects/${id}/team/${w.users.member}`), 404, 'not_found');
    // A user of another account on our project.
    expectProblem(await writer.put(`/projects/${id}/team/${stranger.user}`, {}), 404, 'not_found');
    expectProblem(await writer.delete(`/projects/${id}/team/${stranger.user}`), 404, 'not_found');
    const before = await countRows(ctx.db, 'projects');
    for (const [field, value] of [
      ['client_id', stranger.client],
      ['portfolio_id', stranger.portfolio],
      ['project_group_ids', [stranger.group]],
    ] as const) {
      const p = expectProblem(
        await writer.post('/projects', { client_id: w.clients.alpha, name: 'x', [field]: value }),
        422,
        'validation_failed',
      );
      assert.deepEqual(
        p.errors!.map((e) => e.field),
        [field],
      );
      const q = expectProblem(await writer.patch(`/projects/${id}`, { [field]: value }), 422);
      assert.deepEqual(
        q.errors!.map((e) => e.field),
        [field],
      );
    }
    assert.equal(await countRows(ctx.db, 'projects'), before);
    assert.equal((await reader.get(`/projects/${id}`)).body.data.client_id, w.clients.alpha);
  });

  it('422 on bad input, unknown fields refused', async () => {
    const ok = { client_id: w.clients.alpha, name: 'x' };
    for (const bad of [
      { name: 'no client' },
      { client_id: w.clients.alpha },
      { ...ok, name: '' },
      { ...ok, billing_mode: 'retainer' },
      { ...ok, hourly_rate: 1.001 },
      { ...ok, hourly_rate: -5 },
      { ...ok, budget_amount: 'lots' },
      { ...ok, currency: 'euro' },
      { ...ok, start_date: '2026-12-01', end_date: '2026-11-01' },
      { ...ok, custom_fields: { nope: 1 } },
      { ...ok, archived_at: '2026-01-01T00:00:00Z' },
      { ...ok, team: [] },
    ])
      expectProblem(await writer.post('/projects', bad), 422);
    expectProblem(await writer.patch(`/projects/${w.projects.web}`, {}), 422);
    expectProblem(await writer.patch(`/projects/${w.projects.web}`, { end_date: '2026-01-01' }), 422);
    expectProblem(await writer.put(`/projects/${w.projects.web}/team/${w.users.member}`, { rate: 1 }), 422);
    expectProblem(await writer.put(`/projects/${w.projects.web}/team/${w.users.member}`, { role: '' }), 422);
    expectProblem(await writer.put(`/projects/${w.projects.web}/team/0`, {}), 422);
  });

  it('409 already_exists for an identifier another project holds', async () => {
    const p = expectProblem(
      await writer.post('/projects', { client_id: w.clients.alpha, name: 'Dup', identifier: 'P-1' }),
      409,
      'already_exists',
    );
    assert.deepEqual(
      p.errors!.map((e) => e.field),
      ['identifier'],
    );
    expectProblem(
      await writer.patch(`/projects/${w.projects.app}`, { identifier: 'P-1' }),
      409,
      'already_exists',
    );
    // Its own identifier again is no conflict.
    assert.equal((await writer.patch(`/projects/${w.projects.web}`, { identifier: 'P-1' })).status, 200);
  });
});
