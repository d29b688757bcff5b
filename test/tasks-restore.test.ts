import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { type Api, describeEachDb, expectProblem } from './helpers.js';
import { eventsFor, seedOtherAccount, seedWork, type WorkFixture } from './work.fixtures.js';

describeEachDb('restoring an archived task', (ctx) => {
  let w: WorkFixture;
  let other: Awaited<ReturnType<typeof seedOtherAccount>>;
  let writer: Api;
  let reader: Api;

  before(async () => {
    w = await seedWork(ctx);
    other = await seedOtherAccount(ctx);
    writer = await ctx.as('task-management:read task-management:write');
    reader = await ctx.as('task-management:read');
  });

  const newTask = async () => {
    const res = await writer.post('/tasks', { project_id: w.projects.web, name: 'Archived, then back' });
    assert.equal(res.status, 201, res.text);
    return res.body.data as { id: number };
  };

  it('brings an archived task back into the lists, with task:updated; a live one is answered as it is', async () => {
    const task = await newTask();
    assert.equal((await writer.delete(`/tasks/${task.id}`)).status, 204);
    const listed = async () =>
      (await reader.get(`/tasks?project_id=${w.projects.web}&per_page=100`)).body.data.some(
        (t: { id: number }) => t.id === task.id,
      );
    assert.equal(await listed(), false);
    const res = await writer.post(`/tasks/${task.id}/restore`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.archived_at, null);
    assert.equal(await listed(), true);
    assert.equal((await eventsFor(ctx, 'task:updated', task.id)).length, 1);
    const again = await writer.post(`/tasks/${task.id}/restore`);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body.data, res.body.data);
    assert.equal(
      (await eventsFor(ctx, 'task:updated', task.id)).length,
      1,
      'nothing changed, nothing recorded',
    );
    // Changeable again.
    assert.equal((await writer.patch(`/tasks/${task.id}`, { name: 'Back' })).status, 200);
  });

  it('401, 403 without task-management:write, 404 for another account’s task or none, 422 for a bad id', async () => {
    const task = await newTask();
    await writer.delete(`/tasks/${task.id}`);
    expectProblem(await ctx.anon.post(`/tasks/${task.id}/restore`), 401);
    expectProblem(await reader.post(`/tasks/${task.id}/restore`), 403, 'insufficient_scope');
    expectProblem(await writer.post(`/tasks/${other.task}/restore`), 404);
    expectProblem(await writer.post('/tasks/99999999/restore'), 404);
    expectProblem(await writer.post('/tasks/abc/restore'), 422);
    expectProblem(await writer.post(`/tasks/${task.id}/restore`, { archived: false }), 422);
    assert.notEqual((await reader.get(`/tasks/${task.id}`)).body.data.archived_at, null, 'still archived');
  });

  it('a task of an archived project stays archived (409)', async () => {
    const task = await newTask();
    await writer.delete(`/tasks/${task.id}`);
    await ctx.db
      .updateTable('projects')
      .set({ archived_at: new Date().toISOString() })
      .where('id', '=', w.projects.web)
      .execute();
    try {
      expectProblem(await writer.post(`/tasks/${task.id}/restore`), 409, 'conflict');
    } finally {
      await ctx.db
        .updateTable('projects')
        .set({ archived_at: null })
        .where('id', '=', w.projects.web)
        .execute();
    }
  });
});
