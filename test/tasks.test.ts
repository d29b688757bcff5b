import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { before, it } from 'node:test';
import { type Api, countRows, describeEachDb, expectProblem, multipart } from './helpers.js';
import { eventsFor, seedOtherAccount, seedWork, type WorkFixture } from './work.fixtures.js';

const ids = (res: { body: { data: { id: number }[] } }) => res.body.data.map((r) => r.id);
const fields = (p: { errors?: { field: string }[] }) => p.errors!.map((e) => e.field).sort();

describeEachDb('tasks', (ctx) => {
  let w: WorkFixture;
  let other: Awaited<ReturnType<typeof seedOtherAccount>>;
  let none: Api;
  let reader: Api;
  let writer: Api;
  let onlyWrite: Api;
  let stranger: Api;

  before(async () => {
    w = await seedWork(ctx);
    other = await seedOtherAccount(ctx);
    none = await ctx.as([]);
    reader = await ctx.as('task-management:read');
    writer = await ctx.as('task-management:read task-management:write');
    onlyWrite = await ctx.as('task-management:write');
    stranger = await ctx.as('task-management:read task-management:write client:write', {
      accountId: ctx.other.accountId,
    });
  });

  const newTask = async (extra: Record<string, unknown> = {}) => {
    const res = await writer.post('/tasks', { project_id: w.projects.web, name: 'Scratch task', ...extra });
    assert.equal(res.status, 201, res.text);
    return res.body.data as { id: number; updated_at: string; [k: string]: unknown };
  };

  it('GET /tasks lists active tasks and filters', async () => {
    const res = await reader.get('/tasks');
    assert.equal(res.status, 200);
    assert.deepEqual(ids(res), [w.tasks.wireframes, w.tasks.shop, w.tasks.appLogin]);
    const q = async (query: string) => ids(await reader.get(`/tasks?${query}`));
    assert.deepEqual(await q(`project_id=${w.projects.app}`), [w.tasks.appLogin]);
    assert.deepEqual(await q(`assignee_id=${w.users.member}`), [w.tasks.wireframes]);
    assert.deepEqual(await q('unassigned=true'), [w.tasks.appLogin]);
    assert.deepEqual(await q('status=in_progress'), [w.tasks.shop]);
    assert.deepEqual(await q('priority=high'), [w.tasks.shop]);
    assert.deepEqual(await q(`phase_id=${w.phases.webConcept}`), [w.tasks.wireframes]);
    assert.deepEqual(await q(`milestone_id=${w.milestones.webDesign}`), [w.tasks.wireframes]);
    assert.deepEqual(await q(`epic_id=${w.epics.appLogin}`), [w.tasks.appLogin]);
    assert.deepEqual(await q('due_from=2026-10-01&due_to=2026-10-31'), [w.tasks.appLogin]);
    assert.deepEqual(await q('due_from=2026-10-01&due_to=2026-10-31&archived=true'), [
      w.tasks.archived,
      w.tasks.appLogin,
    ]);
    assert.deepEqual(await q('due_to=2026-09-30'), [w.tasks.wireframes]);
    assert.deepEqual(await q('external_id=jira-1'), [w.tasks.shop]);
    assert.deepEqual(await q('q=shop'), [w.tasks.shop]);
    assert.deepEqual(await q('updated_since=2999-01-01T00:00:00Z'), []);
    const page = await reader.get('/tasks?per_page=2&page=2');
    assert.deepEqual(page.body.meta, { page: 2, per_page: 2, total: 3 });
    assert.deepEqual(ids(page), [w.tasks.appLogin]);
    assert.ok(!(await q('archived=true&per_page=100')).includes(other.task));
    const listed = res.body.data[0];
    assert.deepEqual(listed.custom_fields, { channel: 'web' });
    assert.deepEqual(listed.files, []);
  });

  it('GET /tasks: 401, 403 without task-management:read, 422 on bad filters', async () => {
    expectProblem(await ctx.anon.get('/tasks'), 401, 'unauthorized');
    const p = expectProblem(await onlyWrite.get('/tasks'), 403, 'insufficient_scope');
    assert.deepEqual(p.required_scopes, ['task-management:read']);
    expectProblem(await none.get('/tasks'), 403);
    const bad = expectProblem(
      await reader.get('/tasks?status=later&due_from=soon'),
      422,
      'validation_failed',
    );
    assert.deepEqual(fields(bad), ['due_from', 'status']);
  });

  it('POST /tasks creates a task: 201, Location, full data, task:created event', async () => {
    const body = {
      project_id: w.projects.web,
      name: 'Checkout page',
      description: 'Cart, address, payment',
      status: 'in_progress',
      priority: 'urgent',
      phase_id: w.phases.webBuild,
      epic_id: w.epics.webShop,
      assignee_id: w.users.member,
      start_date: '2026-10-01',
      due_date: '2026-10-10',
      estimate_minutes: 480,
      external_id: 'jira-77',
      custom_fields: { story_points: 5, channel: 'mobile', customer_visible: false, go_live: '2026-12-01' },
    };
    const res = await writer.post('/tasks', body);
    assert.equal(res.status, 201, res.text);
    const t = res.body.data;
    assert.equal(res.headers.location, `/api/v1/tasks/${t.id}`);
    const { custom_fields, ...plain } = body;
    for (const [k, v] of Object.entries(plain)) assert.deepEqual(t[k], v, k);
    assert.deepEqual(t.custom_fields, custom_fields);
    assert.equal(t.milestone_id, null);
    assert.equal(t.created_by_id, w.users.admin);
    assert.equal(t.completed_at, null);
    assert.equal(t.archived_at, null);
    assert.deepEqual(t.files, []);
    assert.deepEqual((await reader.get(`/tasks/${t.id}`)).body.data, t);
    const events = await eventsFor(ctx, 'task:created', t.id);
    assert.equal(events.length, 1);
    assert.equal(events[0]!.resource_type, 'task');
    assert.equal(events[0]!.account_id, ctx.account.accountId);
    assert.deepEqual(events[0]!.payload, t);

    const minimal = await writer.post('/tasks', {
      project_id: w.projects.app,
      name: 'Minimal',
      status: 'done',
    });
    assert.equal(minimal.body.data.priority, 'normal');
    assert.ok(minimal.body.data.completed_at, 'a task created done is completed');
    assert.deepEqual(minimal.body.data.custom_fields, {});
  });

  it('POST /tasks refuses without token (401) or scope (403, before validation), writing nothing', async () => {
    const tasks = await countRows(ctx.db, 'tasks');
    const events = await countRows(ctx.db, 'events');
    expectProblem(await ctx.anon.post('/tasks', { project_id: w.projects.web, name: 'x' }), 401);
    const p = expectProblem(await reader.post('/tasks', { not: 'valid' }), 403, 'insufficient_scope');
    assert.deepEqual(p.required_scopes, ['task-management:write']);
    assert.equal(await countRows(ctx.db, 'tasks'), tasks);
    assert.equal(await countRows(ctx.db, 'events'), events);
  });

  it('POST /tasks: 422 names every bad field, and nothing (no event) is written', async () => {
    const tasks = await countRows(ctx.db, 'tasks');
    const events = await countRows(ctx.db, 'events');
    const shape = expectProblem(
      await writer.post('/tasks', { name: '', status: 'someday', estimate_minutes: -1 }),
      422,
      'validation_failed',
    );
    assert.deepEqual(fields(shape), ['estimate_minutes', 'name', 'project_id', 'status']);
    const refs = expectProblem(
      await writer.post('/tasks', {
        project_id: w.projects.web,
        name: 'Inconsistent',
        phase_id: w.phases.appBuild,
        milestone_id: w.milestones.appBeta,
        epic_id: 999999,
        assignee_id: ctx.other.users.admin,
        start_date: '2026-10-10',
        due_date: '2026-10-01',
        custom_fields: {
          nope: 1,
          story_points: 'five',
          channel: 'fax',
          go_live: '2026-02-30',
          customer_visible: 'yes',
        },
      }),
      422,
      'validation_failed',
    );
    assert.deepEqual(fields(refs), [
      'assignee_id',
      'custom_fields.channel',
      'custom_fields.customer_visible',
      'custom_fields.go_live',
      'custom_fields.nope',
      'custom_fields.story_points',
      'due_date',
      'epic_id',
      'milestone_id',
      'phase_id',
    ]);
    assert.match(refs.errors!.find((e) => e.field === 'phase_id')!.message, /belongs to project/);
    const foreign = expectProblem(
      await writer.post('/tasks', { project_id: other.project, name: 'x', phase_id: other.phase }),
      422,
    );
    assert.deepEqual(fields(foreign), ['project_id']);
    const archived = expectProblem(
      await writer.post('/tasks', { project_id: w.projects.legacy, name: 'x' }),
      422,
    );
    assert.deepEqual(archived.errors, [{ field: 'project_id', message: 'project is archived' }]);
    expectProblem(
      await writer.post('/tasks', { project_id: w.projects.web, name: 'dup', external_id: 'jira-1' }),
      409,
      'external_id_taken',
    );
    assert.equal(await countRows(ctx.db, 'tasks'), tasks);
    assert.equal(await countRows(ctx.db, 'events'), events);
  });

  it('GET /tasks/{task}: 200 with files and custom fields, 401, 403, 404, 422', async () => {
    const res = await reader.get(`/tasks/${w.tasks.wireframes}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.data.name, 'Wireframes');
    assert.equal(res.body.data.phase_id, w.phases.webConcept);
    assert.equal(res.body.data.status, 'done');
    assert.ok(res.body.data.completed_at);
    expectProblem(await ctx.anon.get(`/tasks/${w.tasks.wireframes}`), 401);
    expectProblem(await onlyWrite.get(`/tasks/${w.tasks.wireframes}`), 403, 'insufficient_scope');
    expectProblem(await reader.get('/tasks/999999'), 404, 'not_found');
    expectProblem(await reader.get(`/tasks/${other.task}`), 404, 'not_found');
    expectProblem(await stranger.get(`/tasks/${w.tasks.wireframes}`), 404, 'not_found');
    expectProblem(await reader.get('/tasks/0'), 422);
  });

  it('PATCH /tasks/{task} updates given fields, keeps others, records task:updated', async () => {
    const t = await newTask({
      custom_fields: { story_points: 3, notes: 'keep me' },
      external_id: 'keep-ext',
    });
    const res = await writer.patch(`/tasks/${t.id}`, {
      name: 'Renamed',
      status: 'done',
      assignee_id: w.users.member,
      phase_id: w.phases.webBuild,
      custom_fields: { story_points: 8, notes: null, channel: 'web' },
    });
    assert.equal(res.status, 200, res.text);
    const u = res.body.data;
    assert.equal(u.name, 'Renamed');
    assert.equal(u.status, 'done');
    assert.ok(u.completed_at);
    assert.equal(u.assignee_id, w.users.member);
    assert.equal(u.phase_id, w.phases.webBuild);
    assert.equal(u.priority, 'normal');
    assert.equal(u.external_id, 'keep-ext');
    assert.deepEqual(u.custom_fields, { story_points: 8, channel: 'web' });
    assert.ok(u.updated_at >= t.updated_at);
    // external_id has its own endpoint; the specification names no exception for tasks, so on
    // PATCH it is an unknown field like any other.
    const refused = expectProblem(
      await writer.patch(`/tasks/${t.id}`, { name: 'Other', external_id: 'x' }),
      422,
      'validation_failed',
    );
    assert.deepEqual(
      refused.errors?.map((e) => e.field),
      ['external_id'],
    );
    const events = await eventsFor(ctx, 'task:updated', t.id);
    assert.equal(events.length, 1);
    assert.deepEqual(events[0]!.payload, u);
    const reopened = await writer.patch(`/tasks/${t.id}`, { status: 'open', assignee_id: null });
    assert.equal(reopened.body.data.completed_at, null);
    assert.equal(reopened.body.data.assignee_id, null);
    assert.deepEqual(reopened.body.data.custom_fields, { story_points: 8, channel: 'web' });
  });

  it('PATCH /tasks/{task}: project, phase, milestone and epic must agree (422, nothing changed)', async () => {
    const t = await newTask({ phase_id: w.phases.webBuild, epic_id: w.epics.webShop });
    const events = await countRows(ctx.db, 'events');
    const moved = expectProblem(await writer.patch(`/tasks/${t.id}`, { project_id: w.projects.app }), 422);
    assert.deepEqual(fields(moved), ['epic_id', 'phase_id']);
    expectProblem(await writer.patch(`/tasks/${t.id}`, { milestone_id: w.milestones.appBeta }), 422);
    expectProblem(
      await writer.patch(`/tasks/${t.id}`, { due_date: '2020-01-01', start_date: '2021-01-01' }),
      422,
    );
    const cf = expectProblem(await writer.patch(`/tasks/${t.id}`, { custom_fields: { channel: 'tv' } }), 422);
    assert.deepEqual(fields(cf), ['custom_fields.channel']);
    expectProblem(await writer.patch(`/tasks/${t.id}`, {}), 422);
    expectProblem(await writer.patch(`/tasks/${t.id}`, { name: null }), 422);
    assert.equal(await countRows(ctx.db, 'events'), events);
    assert.deepEqual((await reader.get(`/tasks/${t.id}`)).body.data, t);
    const ok = await writer.patch(`/tasks/${t.id}`, {
      project_id: w.projects.app,
      phase_id: w.phases.appBuild,
      epic_id: null,
      milestone_id: w.milestones.appBeta,
    });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(
      [ok.body.data.project_id, ok.body.data.phase_id, ok.body.data.milestone_id, ok.body.data.epic_id],
      [w.projects.app, w.phases.appBuild, w.milestones.appBeta, null],
    );
  });

  it('PATCH /tasks/{task}: 401, 403, 404', async () => {
    expectProblem(await ctx.anon.patch(`/tasks/${w.tasks.shop}`, { name: 'x' }), 401);
    const p = expectProblem(await reader.patch(`/tasks/${w.tasks.shop}`, { name: 'x' }), 403);
    assert.deepEqual(p.required_scopes, ['task-management:write']);
    expectProblem(await writer.patch('/tasks/999999', { name: 'x' }), 404);
    expectProblem(await writer.patch(`/tasks/${other.task}`, { name: 'x' }), 404);
    expectProblem(await stranger.patch(`/tasks/${w.tasks.shop}`, { name: 'stolen' }), 404);
    assert.equal((await reader.get(`/tasks/${w.tasks.shop}`)).body.data.name, 'Shop API');
  });

  it('DELETE /tasks/{task} archives: 204, still readable, out of lists, task:deleted once', async () => {
    const t = await newTask({ name: 'To archive' });
    const del = await writer.delete(`/tasks/${t.id}`);
    assert.equal(del.status, 204);
    assert.equal(del.text, '');
    const read = await reader.get(`/tasks/${t.id}`);
    assert.equal(read.status, 200);
    assert.ok(read.body.data.archived_at);
    assert.ok(!ids(await reader.get('/tasks?per_page=100')).includes(t.id));
    assert.ok(ids(await reader.get('/tasks?per_page=100&archived=true')).includes(t.id));
    const events = await eventsFor(ctx, 'task:deleted', t.id);
    assert.equal(events.length, 1);
    assert.deepEqual(events[0]!.payload, read.body.data);
    assert.equal((await writer.delete(`/tasks/${t.id}`)).status, 204);
    assert.equal((await eventsFor(ctx, 'task:deleted', t.id)).length, 1, 'archiving twice records nothing');
    expectProblem(await writer.patch(`/tasks/${t.id}`, { name: 'zombie' }), 409, 'conflict');
    assert.equal((await eventsFor(ctx, 'task:updated', t.id)).length, 0);
    expectProblem(await ctx.anon.delete(`/tasks/${t.id}`), 401);
    const p = expectProblem(await reader.delete(`/tasks/${w.tasks.shop}`), 403);
    assert.deepEqual(p.required_scopes, ['task-management:write']);
    expectProblem(await writer.delete('/tasks/999999'), 404);
    expectProblem(await stranger.delete(`/tasks/${w.tasks.shop}`), 404);
    assert.equal((await reader.get(`/tasks/${w.tasks.shop}`)).body.data.archived_at, null);
  });

  it('PUT /tasks/{id}/external-identifier needs client:write; replacing or taking a value is 409 unless forced', async () => {
    const a = await newTask({ name: 'Ext A' });
    const b = await newTask({ name: 'Ext B' });
    const p = expectProblem(
      await writer.put(`/tasks/${a.id}/external-identifier`, { external_id: 'crm-1' }),
      403,
      'insufficient_scope',
    );
    assert.deepEqual(p.required_scopes, ['client:write']);
    expectProblem(await ctx.anon.put(`/tasks/${a.id}/external-identifier`, { external_id: 'x' }), 401);
    const ext = await ctx.as('client:write');
    const set = await ext.put(`/tasks/${a.id}/external-identifier`, { external_id: 'crm-1' });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.body.data.external_id, 'crm-1');
    assert.deepEqual((await eventsFor(ctx, 'task:updated', a.id)).at(-1)!.payload, set.body.data);
    const events = await countRows(ctx.db, 'events');
    expectProblem(
      await ext.put(`/tasks/${b.id}/external-identifier`, { external_id: 'crm-1' }),
      409,
      'external_id_taken',
    );
    assert.equal(await countRows(ctx.db, 'events'), events);
    const forced = await ext.put(`/tasks/${b.id}/external-identifier`, { external_id: 'crm-1', force: true });
    assert.equal(forced.body.data.external_id, 'crm-1');
    assert.equal((await reader.get(`/tasks/${a.id}`)).body.data.external_id, null);
    assert.equal((await eventsFor(ctx, 'task:updated', a.id)).at(-1)!.payload.external_id, null);
    assert.deepEqual(ids(await reader.get('/tasks?external_id=crm-1')), [b.id]);
    // The contacts/companies rule (shared/external-id.ts): the same value again changes nothing;
    // replacing or clearing the task's own value needs `force` too.
    const eventsNow = await countRows(ctx.db, 'events');
    const again = await ext.put(`/tasks/${b.id}/external-identifier`, { external_id: 'crm-1' });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.data.updated_at, forced.body.data.updated_at);
    assert.equal(await countRows(ctx.db, 'events'), eventsNow);
    expectProblem(
      await ext.put(`/tasks/${b.id}/external-identifier`, { external_id: 'crm-2' }),
      409,
      'external_id_set',
    );
    expectProblem(
      await ext.put(`/tasks/${b.id}/external-identifier`, { external_id: null }),
      409,
      'external_id_set',
    );
    assert.equal(await countRows(ctx.db, 'events'), eventsNow);
    const cleared = await ext.put(`/tasks/${b.id}/external-identifier`, { external_id: null, force: true });
    assert.equal(cleared.body.data.external_id, null);
    expectProblem(await ext.put(`/tasks/${b.id}/external-identifier`, { external_id: '' }), 422);
    expectProblem(await ext.put(`/tasks/${b.id}/external-identifier`, {}), 422);
    expectProblem(await ext.put('/tasks/999999/external-identifier', { external_id: 'x' }), 404);
    expectProblem(await stranger.put(`/tasks/${a.id}/external-identifier`, { external_id: 'x' }), 404);
  });

  it('POST /tasks/{id}/upload stores the file; it shows on the task and downloads byte for byte', async () => {
    const t = await newTask({ name: 'With files' });
    const bytes = Buffer.concat([
      Buffer.from('%PDF-1.4\n'),
      Buffer.from(Array.from({ length: 3000 }, (_, i) => i % 256)),
    ]);
    const form = await multipart({ name: 'Brief März.pdf', type: 'application/pdf', data: bytes });
    const res = await writer.request('POST', `/tasks/${t.id}/upload`, form.body, form.headers);
    assert.equal(res.status, 201, res.text);
    const f = res.body.data;
    assert.equal(res.headers.location, `/api/v1/files/${f.id}`);
    assert.equal(f.name, 'Brief März.pdf');
    assert.equal(f.content_type, 'application/pdf');
    assert.equal(f.size, bytes.length);
    assert.equal(f.sha256, createHash('sha256').update(bytes).digest('hex'));
    assert.equal(f.md5, createHash('md5').update(bytes).digest('hex'));
    assert.deepEqual([f.owner_type, f.owner_id], ['task', t.id]);
    const task = await reader.get(`/tasks/${t.id}`);
    assert.deepEqual(task.body.data.files, [f]);
    const listed = (await reader.get(`/tasks?q=with%20files`)).body.data[0];
    assert.deepEqual(listed.files, [f]);
    const dl = await ctx.app.inject({
      url: f.download_url,
      headers: { authorization: `Bearer ${reader.token}` },
    });
    assert.equal(dl.statusCode, 200);
    assert.deepEqual(dl.rawPayload, bytes);
    assert.equal(dl.headers['content-type'], 'application/pdf');
  });

  it('POST /tasks/{id}/upload refuses: 401, 403, 404, 415, 422, 409 archived; nothing stored', async () => {
    const files = await countRows(ctx.db, 'files');
    const form = await multipart({ name: 'a.txt', type: 'text/plain', data: 'hello' });
    const up = (api: Api, id: number, f = form) =>
      api.request('POST', `/tasks/${id}/upload`, f.body, f.headers);
    expectProblem(await up(ctx.anon, w.tasks.shop), 401);
    const p = expectProblem(await up(reader, w.tasks.shop), 403, 'insufficient_scope');
    assert.deepEqual(p.required_scopes, ['task-management:write']);
    expectProblem(await up(writer, 999999), 404);
    expectProblem(await up(stranger, w.tasks.shop), 404);
    const html = await multipart({ name: 'x.html', type: 'text/html', data: '<script>alert(1)</script>' });
    expectProblem(await up(writer, w.tasks.shop, html), 415, 'unsupported_media_type');
    expectProblem(await writer.post(`/tasks/${w.tasks.shop}/upload`, { file: 'not multipart' }), 415);
    const noFile = await multipart(null);
    const missing = expectProblem(await up(writer, w.tasks.shop, noFile), 422);
    assert.deepEqual(fields(missing), ['file']);
    // A text part the form does not declare is refused like an unknown JSON field.
    const noted = await multipart({ name: 'a.txt', type: 'text/plain', data: 'x' }, { note: 'hi' });
    assert.deepEqual(fields(expectProblem(await up(writer, w.tasks.shop, noted), 422)), ['note']);
    const empty = await multipart({ name: 'e.txt', type: 'text/plain', data: '' });
    expectProblem(await up(writer, w.tasks.shop, empty), 422);
    expectProblem(await up(writer, w.tasks.archived), 409, 'conflict');
    expectProblem(await up(writer, other.task), 404);
    assert.equal(await countRows(ctx.db, 'files'), files);
    assert.deepEqual((await reader.get(`/tasks/${w.tasks.shop}`)).body.data.files, []);
  });
});

describeEachDb(
  'task uploads over the limit',
  (ctx) => {
    it('413 beyond UPLOAD_LIMIT, nothing stored; a file at the limit is accepted', async () => {
      const w = await seedWork(ctx);
      const writer = await ctx.as('task-management:write');
      const big = await multipart({
        name: 'big.bin',
        type: 'application/octet-stream',
        data: Buffer.alloc(1025, 7),
      });
      expectProblem(
        await writer.request('POST', `/tasks/${w.tasks.shop}/upload`, big.body, big.headers),
        413,
        'payload_too_large',
      );
      assert.equal(await countRows(ctx.db, 'files'), 0);
      const fits = await multipart({
        name: 'ok.bin',
        type: 'application/octet-stream',
        data: Buffer.alloc(1024, 7),
      });
      const ok = await writer.request('POST', `/tasks/${w.tasks.shop}/upload`, fits.body, fits.headers);
      assert.equal(ok.status, 201, ok.text);
      assert.equal(ok.body.data.size, 1024);
    });
  },
  { config: { uploadLimit: 1024 } },
);
