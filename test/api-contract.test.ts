import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { type Api, describeEachDb, expectProblem } from './helpers.js';

/** The edges of the API contract an integrator trips over: fixed paths, methods, headers. */
describeEachDb('API contract edges', (ctx) => {
  let api: Api;

  before(async () => {
    api = await ctx.as(
      'payments:read payments:write task-management:read task-management:write outgoing-invoice:read outgoing-invoice:write client:write',
    );
  });

  it('a fixed path asked with a method it lacks is 405 with its own Allow, not its {id} sibling’s 422', async () => {
    for (const [method, path, allow] of [
      ['GET', '/payments/outgoing-invoice', 'POST'],
      ['DELETE', '/outgoing-invoices/master', 'GET, HEAD'],
    ] as const) {
      const res = await api.request(method, path);
      const p = expectProblem(res, 405, 'method_not_allowed');
      assert.equal(res.headers.allow, allow, `${method} ${path}`);
      assert.match(p.detail, new RegExp(`${method} is not allowed`));
    }
    const comments = await api.request('GET', '/tasks/comments');
    expectProblem(comments, 405, 'method_not_allowed');
    assert.ok(!String(comments.headers.allow).includes('GET'), String(comments.headers.allow));
  });

  it('a method no route has (QUERY) is 405 with Allow on a path that exists, 404 elsewhere', async () => {
    const res = await ctx.app.inject({ method: 'QUERY', url: '/api/v1/clients' });
    assert.equal(res.statusCode, 405, res.body);
    assert.equal(res.headers.allow, 'GET, HEAD, POST');
    const none = await ctx.app.inject({ method: 'QUERY', url: '/api/v1/no-such-thing' });
    assert.equal(none.statusCode, 404, none.body);
  });

  it('a parameter that is not an id on a path with no fixed sibling stays a 422 naming it', async () => {
    const p = expectProblem(await api.get('/payments/abc'), 422, 'validation_failed');
    assert.deepEqual(
      p.errors!.map((e) => e.field),
      ['id'],
    );
  });

  it('an empty Idempotency-Key is refused (422), not taken for no key; nothing is written', async () => {
    const res = await api.post('/clients', { name: 'Empty key' }, { 'idempotency-key': '' });
    expectProblem(res, 422, 'validation_failed');
    const blank = await api.post('/clients', { name: 'Blank key' }, { 'idempotency-key': '   ' });
    expectProblem(blank, 422, 'validation_failed');
    const list = await (await ctx.as('client:read')).get('/clients?per_page=100');
    assert.ok(!list.body.data.some((c: { name: string }) => c.name.endsWith(' key')));
  });
});
