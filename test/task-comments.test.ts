import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { before, it } from 'node:test';
import { type Api, countRows, describeEachDb, expectProblem, multipart } from './helpers.js';
import { eventsFor, seedOtherAccount, seedWork, type WorkFixture } from './work.fixtures.js';

describeEachDb('task comments', (ctx) => {
  let w: WorkFixture;
  let other: Awaited<ReturnType<typeof seedOtherAccount>>;
  let reader: Api;
  let author: Api;
  let colleague: Api;
  let stranger: Api;

  before(async () => {
    w = await seedWork(ctx);
    other = await seedOtherAccount(ctx);
    reader = await ctx.as('task-management:read');
    author = await ctx.as('task-management:read task-management:write');
    // Same account and scopes, another user: not the author.
    colleague = await ctx.as('task-management:read task-management:write', {
      userId: ctx.account.users.member,
    });
    stranger = await ctx.as('task-management:read task-management:write', { accountId: ctx.other.accountId });
  });

  const comment = async (content = 'A comment', taskId = w.tasks.shop) => {
    const res = await author.post('/tasks/comments', { task_id: taskId, content });
    assert.equal(res.status, 201, res.text);
    return res.body.data as { id: number; content: string; updated_at: string };
  };

  it('POST /tasks/comments creates a comment by the token’s user; comment:created', async () => {
    const res = await author.post('/tasks/comments', { task_id: w.tasks.shop, content: 'Looks good 👍' });
    assert.equal(res.status, 201);
    const c = res.body.data;
    assert.equal(res.headers.location, `/api/v1/tasks/comments/${c.id}`);
    assert.deepEqual(
      { ...c, created_at: undefined, updated_at: undefined },
      {
        id: c.id,
        task_id: w.tasks.shop,
        author_id: w.users.admin,
        content: 'Looks good 👍',
        files: [],
        created_at: undefined,
        updated_at: undefined,
      },
    );
    assert.deepEqual((await reader.get(`/tasks/comments/${c.id}`)).body.data, c);
    const events = await eventsFor(ctx, 'comment:created', c.id);
    assert.equal(events.length, 1);
    assert.equal(events[0]!.resource_type, 'comment');
    assert.deepEqual(events[0]!.payload, c);
    const byMember = await colleague.post('/tasks/comments', { task_id: w.tasks.shop, content: 'Mine' });
    assert.equal(byMember.body.data.author_id, w.users.member);
  });

  it('POST /tasks/comments refuses: 401, 403, 422 (no event), 409 on an archived task', async () => {
    const comments = await countRows(ctx.db, 'task_comments');
    const events = await countRows(ctx.db, 'events');
    expectProblem(await ctx.anon.post('/tasks/comments', { task_id: w.tasks.shop, content: 'x' }), 401);
    const p = expectProblem(
      await reader.post('/tasks/comments', { nonsense: true }),
      403,
      'insufficient_scope',
    );
    assert.deepEqual(p.required_scopes, ['task-management:write']);
    const bad = expectProblem(
      await author.post('/tasks/comments', { content: '' }),
      422,
      'validation_failed',
    );
    assert.deepEqual(bad.errors!.map((e) => e.field).sort(), ['content', 'task_id']);
    const unknown = expectProblem(
      await author.post('/tasks/comments', { task_id: 999999, content: 'x' }),
      422,
    );
    assert.deepEqual(unknown.errors, [{ field: 'task_id', message: 'no such task' }]);
    expectProblem(await author.post('/tasks/comments', { task_id: other.task, content: 'x' }), 422);
    expectProblem(
      await author.post('/tasks/comments', { task_id: w.tasks.archived, content: 'x' }),
      409,
      'conflict',
    );
    assert.equal(await countRows(ctx.db, 'task_comments'), comments);
    assert.equal(await countRows(ctx.db, 'events'), events);
  });

  it('GET /tasks/{id}/comments lists a task’s comments; GET /tasks/comments/{id} reads one', async () => {
    const list = await reader.get(`/tasks/${w.tasks.wireframes}/comments`);
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.data.map((c: { content: string; author_id: number }) => [c.content, c.author_id]),
      [['Approved by the client', w.users.admin]],
    );
    assert.deepEqual(list.body.meta, { page: 1, per_page: 50, total: 1 });
    const a = await comment('first', w.tasks.appLogin);
    const b = await comment('second', w.tasks.appLogin);
    const page = await reader.get(`/tasks/${w.tasks.appLogin}/comments?per_page=1&page=2`);
    assert.deepEqual(
      page.body.data.map((c: { id: number }) => c.id),
      [b.id],
    );
    assert.match(String(page.headers.link), /rel="first"/);
    assert.equal((await reader.get(`/tasks/comments/${a.id}`)).body.data.content, 'first');
    for (const path of [`/tasks/${w.tasks.appLogin}/comments`, `/tasks/comments/${a.id}`]) {
      expectProblem(await ctx.anon.get(path), 401);
      const p = expectProblem(await ctx.as('task-management:write').then((api) => api.get(path)), 403);
      assert.deepEqual(p.required_scopes, ['task-management:read']);
      expectProblem(await stranger.get(path), 404);
    }
    expectProblem(await reader.get('/tasks/999999/comments'), 404);
    expectProblem(await reader.get(`/tasks/${other.task}/comments`), 404);
    expectProblem(await reader.get('/tasks/comments/999999'), 404);
    expectProblem(await reader.get('/tasks/comments/x'), 422);
    // Comments of archived tasks stay readable.
    assert.equal((await reader.get(`/tasks/${w.tasks.archived}/comments`)).status, 200);
  });

  it('PATCH /tasks/comments/{id}: the author updates (comment:updated); anyone else gets 403 not_author', async () => {
    const c = await comment('draft');
    const events = await countRows(ctx.db, 'events');
    const p = expectProblem(
      await colleague.patch(`/tasks/comments/${c.id}`, { content: 'hijacked' }),
      403,
      'not_author',
    );
    assert.match(p.detail, /author/);
    assert.equal(await countRows(ctx.db, 'events'), events);
    assert.equal((await reader.get(`/tasks/comments/${c.id}`)).body.data.content, 'draft');
    const res = await author.patch(`/tasks/comments/${c.id}`, { content: 'final' });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.content, 'final');
    assert.ok(res.body.data.updated_at >= c.updated_at);
    const ev = await eventsFor(ctx, 'comment:updated', c.id);
    assert.equal(ev.length, 1);
    assert.deepEqual(ev[0]!.payload, res.body.data);
    expectProblem(await ctx.anon.patch(`/tasks/comments/${c.id}`, { content: 'x' }), 401);
    const scope = expectProblem(
      await reader.patch(`/tasks/comments/${c.id}`, { content: 'x' }),
      403,
      'insufficient_scope',
    );
    assert.deepEqual(scope.required_scopes, ['task-management:write']);
    expectProblem(await author.patch(`/tasks/comments/${c.id}`, { content: '' }), 422);
    expectProblem(await author.patch(`/tasks/comments/${c.id}`, {}), 422);
    expectProblem(await author.patch('/tasks/comments/999999', { content: 'x' }), 404);
    expectProblem(await stranger.patch(`/tasks/comments/${c.id}`, { content: 'x' }), 404);
    assert.equal((await reader.get(`/tasks/comments/${c.id}`)).body.data.content, 'final');
  });

  it('DELETE /tasks/comments/{id}: only the author; 204, gone, comment:deleted with the comment', async () => {
    const c = await comment('to delete');
    const events = await countRows(ctx.db, 'events');
    expectProblem(await colleague.delete(`/tasks/comments/${c.id}`), 403, 'not_author');
    expectProblem(await ctx.anon.delete(`/tasks/comments/${c.id}`), 401);
    expectProblem(await reader.delete(`/tasks/comments/${c.id}`), 403, 'insufficient_scope');
    expectProblem(await stranger.delete(`/tasks/comments/${c.id}`), 404);
    assert.equal(await countRows(ctx.db, 'events'), events);
    assert.equal((await reader.get(`/tasks/comments/${c.id}`)).status, 200);
    const before = (await reader.get(`/tasks/comments/${c.id}`)).body.data;
    const del = await author.delete(`/tasks/comments/${c.id}`);
    assert.equal(del.status, 204);
    expectProblem(await reader.get(`/tasks/comments/${c.id}`), 404);
    const ev = await eventsFor(ctx, 'comment:deleted', c.id);
    assert.equal(ev.length, 1);
    assert.deepEqual(ev[0]!.payload, before);
    expectProblem(await author.delete(`/tasks/comments/${c.id}`), 404);
  });

  it('POST /tasks/comments/{id}/upload: author only; file shows on the comment and downloads intact', async () => {
    const c = await comment('with attachment');
    const bytes = Buffer.from(Array.from({ length: 2048 }, (_, i) => (i * 7) % 256));
    const form = await multipart({ name: 'shot.png', type: 'image/png', data: bytes });
    const up = (api: Api, id: number, f = form) =>
      api.request('POST', `/tasks/comments/${id}/upload`, f.body, f.headers);
    const files = await countRows(ctx.db, 'files');
    expectProblem(await up(colleague, c.id), 403, 'not_author');
    expectProblem(await up(ctx.anon, c.id), 401);
    const scope = expectProblem(await up(reader, c.id), 403, 'insufficient_scope');
    assert.deepEqual(scope.required_scopes, ['task-management:write']);
    expectProblem(await up(author, 999999), 404);
    expectProblem(await up(stranger, c.id), 404);
    const exe = await multipart({ name: 'x.exe', type: 'application/x-msdownload', data: 'MZ' });
    expectProblem(await up(author, c.id, exe), 415, 'unsupported_media_type');
    expectProblem(await up(author, c.id, await multipart(null, { a: 'b' })), 422);
    assert.equal(await countRows(ctx.db, 'files'), files);

    const res = await up(author, c.id);
    assert.equal(res.status, 201, res.text);
    const f = res.body.data;
    assert.deepEqual(
      [f.owner_type, f.owner_id, f.size, f.content_type],
      ['comment', c.id, 2048, 'image/png'],
    );
    assert.equal(f.sha256, createHash('sha256').update(bytes).digest('hex'));
    assert.equal(f.md5, createHash('md5').update(bytes).digest('hex'));
    assert.deepEqual((await reader.get(`/tasks/comments/${c.id}`)).body.data.files, [f]);
    const listed = (await reader.get(`/tasks/${w.tasks.shop}/comments?per_page=100`)).body.data;
    assert.deepEqual(listed.find((x: { id: number }) => x.id === c.id).files, [f]);
    const dl = await ctx.app.inject({
      url: f.download_url,
      headers: { authorization: `Bearer ${reader.token}` },
    });
    assert.deepEqual(dl.rawPayload, bytes);

    // Deleting the comment deletes its files.
    assert.equal((await author.delete(`/tasks/comments/${c.id}`)).status, 204);
    expectProblem(await reader.get(`/files/${f.id}`), 404);
  });
});

describeEachDb(
  'comment uploads over the limit',
  (ctx) => {
    it('413 beyond UPLOAD_LIMIT, nothing stored', async () => {
      const w = await seedWork(ctx);
      const author = await ctx.as('task-management:write');
      const c = await author.post('/tasks/comments', { task_id: w.tasks.shop, content: 'x' });
      const big = await multipart({ name: 'big.pdf', type: 'application/pdf', data: Buffer.alloc(5000, 1) });
      expectProblem(
        await author.request('POST', `/tasks/comments/${c.body.data.id}/upload`, big.body, big.headers),
        413,
        'payload_too_large',
      );
      assert.equal(await countRows(ctx.db, 'files'), 0);
    });
  },
  { config: { uploadLimit: 1024 } },
);
