import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { type Api, describeEachDb } from './helpers.js';
import { seedWork, type WorkFixture } from './work.fixtures.js';

/**
 * A JSON body may carry a UTF-16 surrogate without its partner (`"\ud800x"`). Such a text is
 * stored with U+FFFD in its place on both databases, whichever way its row is written: a batched
 * create goes to PostgreSQL as one JSON text, whose parser refuses the escape (it answered 500).
 */
describeEachDb('lone surrogates in a body', (ctx) => {
  let w: WorkFixture;
  let writer: Api;

  before(async () => {
    w = await seedWork(ctx);
    writer = await ctx.as('task-management:read task-management:write');
  });

  it('POST /tasks stores a lone surrogate as U+FFFD', async () => {
    const res = await writer.post('/tasks', {
      project_id: w.projects.web,
      name: 'Lone \ud800 high',
      external_id: '\udc00x',
    });
    assert.equal(res.status, 201, res.text);
    const read = await writer.get(`/tasks/${res.body.data.id}`);
    assert.equal(read.status, 200);
    assert.equal(read.body.data.name, 'Lone \ufffd high');
    assert.equal(read.body.data.external_id, '\ufffdx');
  });

  it('keeps a pair and a backslash text as they are', async () => {
    const res = await writer.post('/tasks', {
      project_id: w.projects.web,
      name: 'Pair 😀 and \\ud800 typed',
    });
    assert.equal(res.status, 201, res.text);
    const read = await writer.get(`/tasks/${res.body.data.id}`);
    assert.equal(read.body.data.name, 'Pair 😀 and \\ud800 typed');
  });
});
