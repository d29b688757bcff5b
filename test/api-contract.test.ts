import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { type Api, describeEachDb, expectProblem } from './helpers.js';

/** The edges of the API contract an integrator trips over: fixed paths, methods, headers. */
describeEachDb('API contract edges', (ctx) => {
  let api: Api;

  before(async () => {
    api = await ctx.as(
      'payments:read payments:write task-management:read task-management:write outgoing-invoice:read outgoing-invoice:write outgoing-invoice:book client:write contact-data:write',
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

  it('a body whose fields are all optional may be left out, and the document says so', async () => {
    const send = (method: 'POST' | 'PATCH', url: string) =>
      ctx.app.inject({ method, url: `/api/v1${url}`, headers: { authorization: `Bearer ${api.token}` } });
    // Booking takes only an optional number: without a body it goes on to look for the invoice.
    const book = await send('POST', '/outgoing-invoices/99999999/book');
    assert.equal(book.statusCode, 404, book.body);
    const company = await api.post('/companies', { name: 'Sent without a body' });
    assert.equal(company.status, 201, company.text);
    const patched = await send('PATCH', `/companies/${company.body.data.id}`);
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json().data.name, 'Sent without a body');
    // A body with a required field, or one that must change something, is still required.
    assert.equal((await send('POST', '/clients')).statusCode, 422);
    assert.equal((await send('PATCH', '/clients/1')).statusCode, 422);
    const doc = (await ctx.app.inject({ url: '/api/v1/openapi.json' })).json();
    assert.equal(doc.paths['/api/v1/outgoing-invoices/{id}/book'].post.requestBody.required, false);
    assert.equal(doc.paths['/api/v1/clients/{id}'].patch.requestBody.required, true);
    assert.equal(doc.paths['/api/v1/clients'].post.requestBody.required, true);
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
