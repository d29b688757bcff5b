import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { before, it } from 'node:test';
import { DEMO_FILE } from '../src/import/demo.js';
import { importData } from '../src/import/index.js';
import { type Api, countRows, describeEachDb, expectProblem } from './helpers.js';
import { seedOtherAccount, seedWork, type WorkFixture } from './work.fixtures.js';

const ids = (res: { body: { data: { id: number }[] } }) => res.body.data.map((r) => r.id);

describeEachDb('projects', (ctx) => {
  let w: WorkFixture;
  let none: Api;
  let reader: Api;
  let other: Awaited<ReturnType<typeof seedOtherAccount>>;

  before(async () => {
    w = await seedWork(ctx);
    other = await seedOtherAccount(ctx);
    none = await ctx.as([]);
    reader = await ctx.as('task-management:read');
  });

  it('GET /projects lists active projects of the account with every field', async () => {
    const res = await none.get('/projects');
    assert.equal(res.status, 200);
    assert.deepEqual(ids(res), [w.projects.web, w.projects.app]);
    assert.deepEqual(res.body.meta, { page: 1, per_page: 50, total: 2 });
    const web = res.body.data[0];
    assert.deepEqual(
      { ...web, created_at: undefined, updated_at: undefined },
      {
        id: w.projects.web,
        identifier: 'P-1',
        name: 'Website relaunch',
        description: 'New website',
        client_id: w.clients.alpha,
        portfolio_id: w.portfolios.digital,
        project_group_ids: [w.groups.retainer, w.groups.fixed].sort((a, b) => a - b),
        status: 'active',
        billable: true,
        start_date: '2026-09-01',
        end_date: '2026-12-31',
        budget_minutes: 6000,
        billing_mode: 'time_and_materials',
        hourly_rate: null,
        budget_amount: null,
        currency: null,
        custom_fields: { cost_center: 'CC-7' },
        archived_at: null,
        created_at: undefined,
        updated_at: undefined,
      },
    );
    assert.match(web.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.equal(res.body.data[1].billable, false);
  });

  it('filters by client, status, archived, portfolio, group, team member, q and updated_since', async () => {
    assert.deepEqual(ids(await none.get(`/projects?client_id=${w.clients.alpha}`)), [w.projects.web]);
    assert.deepEqual(ids(await none.get(`/projects?client_id=${w.clients.alpha}&archived=true`)), [
      w.projects.web,
      w.projects.legacy,
    ]);
    assert.deepEqual(ids(await none.get('/projects?status=planned')), [w.projects.app]);
    assert.deepEqual(ids(await none.get('/projects?status=completed&archived=true')), [w.projects.legacy]);
    assert.deepEqual(ids(await none.get(`/projects?portfolio_id=${w.portfolios.digital}`)), [w.projects.web]);
    assert.deepEqual(ids(await none.get(`/projects?project_group_id=${w.groups.retainer}`)), [
      w.projects.web,
      w.projects.app,
    ]);
    assert.deepEqual(ids(await none.get(`/projects?project_group_id=${w.groups.fixed}`)), [w.projects.web]);
    assert.deepEqual(ids(await none.get(`/projects?user_id=${w.users.admin}`)), [w.projects.web]);
    assert.deepEqual(ids(await none.get('/projects?q=MOBILE')), [w.projects.app]);
    assert.deepEqual(ids(await none.get('/projects?q=p-1')), [w.projects.web]);
    assert.deepEqual(ids(await none.get('/projects?updated_since=2000-01-01T00:00:00Z')), [
      w.projects.web,
      w.projects.app,
    ]);
    assert.deepEqual(ids(await none.get('/projects?updated_since=2999-01-01T00:00:00Z')), []);
    const legacy = await none.get(`/projects/${w.projects.legacy}`);
    assert.ok(legacy.body.data.archived_at, 'archived projects stay readable by id');
  });

  it('pages with meta and Link', async () => {
    const p1 = await none.get('/projects?per_page=1');
    assert.deepEqual(p1.body.meta, { page: 1, per_page: 1, total: 2 });
    assert.match(String(p1.headers.link), /per_page=1&page=2>; rel="next"/);
    const p2 = await none.get('/projects?per_page=1&page=2');
    assert.deepEqual(ids(p2), [w.projects.app]);
    expectProblem(await none.get('/projects?per_page=500'), 422);
    const bad = expectProblem(
      await none.get('/projects?status=sleeping&client_id=x'),
      422,
      'validation_failed',
    );
    assert.deepEqual(bad.errors!.map((e) => e.field).sort(), ['client_id', 'status']);
  });

  it('GET /projects/{id}: 200, 401, 404 (unknown and other account), 422', async () => {
    const res = await none.get(`/projects/${w.projects.app}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.data.name, 'Mobile app');
    assert.deepEqual(res.body.data.project_group_ids, [w.groups.retainer]);
    assert.deepEqual(res.body.data.custom_fields, {});
    expectProblem(await ctx.anon.get(`/projects/${w.projects.app}`), 401, 'unauthorized');
    expectProblem(await none.get('/projects/999999'), 404, 'not_found');
    expectProblem(await none.get(`/projects/${other.project}`), 404, 'not_found');
    expectProblem(await none.get('/projects/abc'), 422);
    assert.ok(!ids(await none.get('/projects?archived=true')).includes(other.project));
  });

  it('team and guests need no scope', async () => {
    const team = await none.get(`/projects/${w.projects.web}/team`);
    assert.equal(team.status, 200);
    assert.deepEqual(
      team.body.data.map((m: { user_id: number; role: string; first_name: string }) => [
        m.user_id,
        m.role,
        m.first_name,
      ]),
      [
        [w.users.admin, 'manager', 'Ada'],
        [w.users.member, 'developer', 'Max'],
      ],
    );
    assert.deepEqual(Object.keys(team.body.data[0]).sort(), [
      'active',
      'added_at',
      'first_name',
      'hourly_rate',
      'last_name',
      'position',
      'role',
      'user_id',
    ]);
    assert.equal(team.body.meta.total, 2);
    const guests = await none.get(`/projects/${w.projects.web}/guests`);
    assert.equal(guests.status, 200);
    assert.deepEqual(
      guests.body.data.map((g: { name: string; email: string | null; contact_id: number | null }) => [
        g.name,
        g.email,
        g.contact_id,
      ]),
      [
        ['Carla Client', 'carla@alpha.example', 42],
        ['Bob', null, null],
      ],
    );
    assert.deepEqual((await none.get(`/projects/${w.projects.app}/guests`)).body.data, []);
    for (const sub of ['team', 'guests']) {
      expectProblem(await ctx.anon.get(`/projects/${w.projects.web}/${sub}`), 401);
      expectProblem(await none.get(`/projects/999999/${sub}`), 404);
      expectProblem(await none.get(`/projects/${other.project}/${sub}`), 404);
    }
  });

  it('phases, milestones and epics need task-management:read', async () => {
    const phases = await reader.get(`/projects/${w.projects.web}/phases`);
    assert.equal(phases.status, 200);
    assert.deepEqual(
      phases.body.data.map((p: { name: string; position: number; start_date: string | null }) => [
        p.name,
        p.position,
        p.start_date,
      ]),
      [
        ['Concept', 0, '2026-09-01'],
        ['Build', 1, null],
      ],
    );
    assert.equal(phases.body.data[0].project_id, w.projects.web);
    const milestones = await reader.get(`/projects/${w.projects.web}/milestones`);
    assert.deepEqual(
      milestones.body.data.map((m: { name: string; due_date: string; completed: boolean }) => [
        m.name,
        m.due_date,
        m.completed,
      ]),
      [
        ['Design approved', '2026-09-30', true],
        ['Go-live', '2026-12-15', false],
      ],
    );
    assert.ok(milestones.body.data[0].completed_at);
    assert.equal(milestones.body.data[1].completed_at, null);
    const epics = await reader.get(`/projects/${w.projects.web}/epics`);
    assert.deepEqual(
      epics.body.data.map((e: { name: string; status: string }) => [e.name, e.status]),
      [
        ['Shop', 'in_progress'],
        ['CMS', 'done'],
      ],
    );
    for (const sub of ['phases', 'milestones', 'epics', 'tasks']) {
      expectProblem(await ctx.anon.get(`/projects/${w.projects.web}/${sub}`), 401);
      const p = expectProblem(
        await none.get(`/projects/${w.projects.web}/${sub}`),
        403,
        'insufficient_scope',
      );
      assert.deepEqual(p.required_scopes, ['task-management:read']);
      expectProblem(await reader.get(`/projects/999999/${sub}`), 404);
      expectProblem(await reader.get(`/projects/${other.project}/${sub}`), 404);
      expectProblem(await reader.get(`/projects/${w.projects.web}/${sub}?per_page=0`), 422);
    }
  });

  it('GET /projects/{id}/tasks lists the project’s tasks with the task filters', async () => {
    const res = await reader.get(`/projects/${w.projects.web}/tasks`);
    assert.equal(res.status, 200);
    assert.deepEqual(ids(res), [w.tasks.wireframes, w.tasks.shop]);
    assert.deepEqual(ids(await reader.get(`/projects/${w.projects.web}/tasks?archived=true`)), [
      w.tasks.wireframes,
      w.tasks.shop,
      w.tasks.archived,
    ]);
    assert.deepEqual(ids(await reader.get(`/projects/${w.projects.web}/tasks?status=done`)), [
      w.tasks.wireframes,
    ]);
    assert.deepEqual(ids(await reader.get(`/projects/${w.projects.app}/tasks`)), [w.tasks.appLogin]);
    // The path names the project: a project_id in the query is not a filter here, but unknown.
    const refused = expectProblem(
      await reader.get(`/projects/${w.projects.web}/tasks?project_id=${w.projects.app}`),
      422,
      'validation_failed',
    );
    assert.deepEqual(
      refused.errors?.map((e) => e.field),
      ['project_id'],
    );
  });

  it('import refuses inconsistent projects and tasks, and imports nothing then', async () => {
    const before = await countRows(ctx.db, 'projects');
    await assert.rejects(
      importData(
        ctx.db,
        {
          clients: [{ key: 'x', name: 'X' }],
          projects: [
            { key: 'p1', client: 'x', name: 'P1', phases: [{ key: 'p1ph', name: 'ph' }] },
            { key: 'p2', client: 'x', name: 'P2' },
          ],
          tasks: [{ project: 'p2', phase: 'p1ph', name: 'wrong phase' }],
        },
        { accountId: ctx.account.accountId },
      ),
      (err: { errors?: { field: string }[] }) => err.errors?.[0]?.field === 'tasks.0.phase_id',
    );
    await assert.rejects(
      importData(
        ctx.db,
        {
          clients: [{ key: 'x', name: 'X' }],
          projects: [{ client: 'x', name: 'P', custom_fields: { nope: 1 } }],
        },
        { accountId: ctx.account.accountId },
      ),
      (err: { errors?: { field: string }[] }) => err.errors?.[0]?.field === 'projects.0.custom_fields.nope',
    );
    await assert.rejects(
      importData(
        ctx.db,
        { projects: [{ client: 'missing', name: 'P' }] },
        { accountId: ctx.account.accountId },
      ),
      /no clients with key "missing"/,
    );
    assert.equal(await countRows(ctx.db, 'projects'), before);
  });

  it('the demo data brings projects, tasks, comments, efforts and custom fields', async () => {
    const { account_id } = await importData(ctx.db, JSON.parse(await readFile(DEMO_FILE, 'utf8')));
    const admin = await ctx.db
      .selectFrom('users')
      .select('id')
      .where('account_id', '=', account_id)
      .where('role', '=', 'admin')
      .executeTakeFirstOrThrow();
    const api = await ctx.as(
      'task-management:read efforts:read efforts:extended:read integration user_group:read',
      {
        userId: admin.id,
      },
    );
    const projects = (await api.get('/projects')).body;
    assert.equal(projects.meta.total, 2);
    const web = projects.data[0];
    assert.equal((await api.get(`/projects/${web.id}/team`)).body.meta.total, 3);
    assert.equal((await api.get(`/projects/${web.id}/phases`)).body.meta.total, 3);
    const tasks = (await api.get('/tasks')).body;
    assert.equal(tasks.meta.total, 5);
    const shop = tasks.data.find((t: { name: string }) => t.name === 'Connect shop API');
    assert.deepEqual(shop.custom_fields, { story_points: 8, channel: 'web' });
    assert.equal((await api.get(`/tasks/${shop.id}/comments`)).body.meta.total, 2);
    assert.equal((await api.get('/efforts')).body.meta.total, 6);
    // Other modules' demo records bring definitions of their own (company, contact).
    assert.equal((await api.get('/custom-fields?entity=task')).body.meta.total, 4);
    assert.equal((await api.get('/custom-fields?entity=project')).body.meta.total, 1);
    assert.equal((await api.get('/portfolios')).body.meta.total, 2);
  });
});
