import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { before, it } from 'node:test';
import { buildApp } from '../src/app.js';
import { ALL_SCOPES } from '../src/shared/scopes.js';
import { type Api, countRows, describeEachDb, expectProblem, multipart, testConfig } from './helpers.js';
import { seedWork, type WorkFixture } from './work.fixtures.js';

const fields = (problem: { errors?: { field: string }[] }) => (problem.errors ?? []).map((e) => e.field);

/** Tables a refused request must leave as they were. */
const TABLES = ['clients', 'tasks', 'task_comments', 'files', 'outgoing_invoices', 'incoming_invoices'];

/** One raw HTTP exchange over a real socket: what Node's parser sees, not app.inject. */
function rawExchange(
  port: number,
  write: (socket: import('node:net').Socket) => void,
): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk) => {
      data += chunk;
    });
    socket.on('error', () => {}); // the server closes the connection after answering
    socket.on('close', () => {
      const [head = '', body = ''] = data.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      if (!status) reject(new Error(`no answer: ${JSON.stringify(data.slice(0, 200))}`));
      else resolve({ status, headers: head.toLowerCase(), body });
    });
    socket.on('connect', () => write(socket));
  });
}

describeEachDb('strict input and bounds', (ctx) => {
  let api: Api;
  let w: WorkFixture;
  let commentId: number;
  let before_: Record<string, number>;

  const snapshot = async () =>
    Object.fromEntries(await Promise.all(TABLES.map(async (t) => [t, await countRows(ctx.db, t)] as const)));

  before(async () => {
    api = await ctx.as([...ALL_SCOPES]);
    w = await seedWork(ctx);
    const comment = await api.post('/tasks/comments', { task_id: w.tasks.shop, content: 'hello' });
    assert.equal(comment.status, 201, comment.text);
    commentId = comment.body.data.id;
    before_ = await snapshot();
  });

  /** Asserts a 422 naming exactly `expected`. */
  const refused = (res: Awaited<ReturnType<Api['get']>>, expected: string[]) =>
    assert.deepEqual(fields(expectProblem(res, 422, 'validation_failed')), expected);

  it('an unknown body field is a 422 naming it, nothing is written', async () => {
    refused(await api.post('/clients', { name: 'X', emial: 'x@example.com' }), ['emial']);
    refused(
      await api.post('/outgoing-invoices', {
        client_id: w.clients.alpha,
        line_items: [{ title: 'a', quantity: 1, unit_price: 1, tax_rate: 19, vat: 19 }],
      }),
      ['line_items.0.vat'],
    );
    refused(await api.patch(`/tasks/${w.tasks.shop}`, { name: 'n', external_id: 'e' }), ['external_id']);
    assert.deepEqual(await snapshot(), before_);
  });

  it('the OpenAPI document publishes what is enforced', async () => {
    const doc = (await ctx.anon.get('/openapi.json')).body;
    const body = (path: string, method: string) =>
      doc.paths[`/api/v1${path}`][method].requestBody.content['application/json'].schema;
    const create = body('/clients', 'post');
    assert.equal(create.additionalProperties, false);
    assert.equal(create.properties.name.maxLength, 255);
    const line = body('/outgoing-invoices', 'post').properties.line_items;
    assert.equal(line.items.additionalProperties, false);
    assert.equal(line.maxItems, 500);
    const patch = body('/clients/{id}', 'patch');
    assert.equal(patch.properties.external_id['x-ignored'], true);
    assert.match(patch.properties.shortcode.description, /ignored/);
    const params = doc.paths['/api/v1/outgoing-invoices'].get.parameters;
    const page = params.find((p: { name: string }) => p.name === 'page').schema;
    assert.equal(page.maximum, 1_000_000);
    const clientId = params.find((p: { name: string }) => p.name === 'client_id').schema;
    assert.equal(clientId.maximum, 2_147_483_647);
  });

  it('an unknown query parameter is a 422 naming it', async () => {
    refused(await api.get('/outgoing-invoices?clientid=4'), ['clientid']);
    refused(await api.get(`/clients/${w.clients.alpha}?verbose=1`), ['verbose']);
  });

  it('a route without a body schema takes no body fields', async () => {
    refused(await api.post(`/clients/${w.clients.alpha}/restore`, { force: true }), ['force']);
  });

  it('fields the specification says PATCH does not change are accepted and ignored', async () => {
    const created = await api.post('/clients', { name: 'Keep', shortcode: 'KEEP', external_id: 'k-1' });
    const res = await api.patch(`/clients/${created.body.data.id}`, {
      city: 'Kiel',
      shortcode: 'OTHER',
      external_id: 'k-2',
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.city, 'Kiel');
    assert.equal(res.body.data.shortcode, 'KEEP');
    assert.equal(res.body.data.external_id, 'k-1');
    await api.delete(`/clients/${created.body.data.id}`);
    before_ = await snapshot();
  });

  it('a NUL character in a body, a filter or a path is a 422 naming the field', async () => {
    refused(await api.post('/clients', { name: 'a\u0000b' }), ['name']);
    refused(
      await api.post('/outgoing-invoices', {
        line_items: [{ title: 'a\u0000', quantity: 1, unit_price: 1, tax_rate: 19 }],
      }),
      ['line_items.0.title'],
    );
    refused(await api.get('/clients?q=%00'), ['q']);
    refused(await api.get('/outgoing-invoices?invoice_number=RE%00'), ['invoice_number']);
    refused(await api.get('/clients/1%00'), ['id']);
    assert.deepEqual(await snapshot(), before_);
  });

  it('page, per_page and ids are bounded', async () => {
    refused(await api.get('/clients?page=1e308'), ['page']);
    refused(await api.get('/clients?page=1000001'), ['page']);
    assert.equal((await api.get('/clients?page=1000000')).status, 200);
    refused(await api.get('/clients?per_page=101'), ['per_page']);
    refused(await api.get('/clients/2147483648'), ['id']);
    refused(await api.get('/tasks?assignee_id=2147483648'), ['assignee_id']);
    refused(await api.get('/contacts?company_id=2147483648'), ['company_id']);
    refused(await api.post('/tasks', { project_id: 2147483648, name: 'x' }), ['project_id']);
    refused(await api.post('/tasks/comments', { task_id: 2147483648, content: 'x' }), ['task_id']);
    assert.deepEqual(await snapshot(), before_);
  });

  it('dates are real calendar dates in the years 0001–9999', async () => {
    for (const date of ['0000-01-01', '2026-02-30', '10000-01-01', '2026-13-01']) {
      refused(await api.post('/outgoing-invoices', { client_id: w.clients.alpha, date }), ['date']);
    }
    refused(await api.get('/clients?updated_since=0000-12-31T23:00:00Z'), ['updated_since']);
    refused(await api.get('/clients?updated_since=0001-01-01T00:00:00%2B01:00'), ['updated_since']);
    assert.equal((await api.get('/clients?updated_since=0001-01-01T00:00:00Z')).status, 200);
    assert.deepEqual(await snapshot(), before_);
    // Arithmetic at the end of the range stays in it: the due date stops at 9999-12-31.
    const late = await api.post('/outgoing-invoices', {
      client_id: w.clients.alpha,
      date: '9999-12-01',
      payment_term_days: 3650,
      line_items: [{ title: 'a', quantity: 1, unit_price: 1, tax_rate: 19 }],
    });
    assert.equal(late.status, 201, late.text);
    assert.equal(late.body.data.due_date, '9999-12-31');
    const booked = await api.post(`/outgoing-invoices/${late.body.data.id}/book`, {});
    assert.equal(booked.status, 200, booked.text);
    await api.delete(`/outgoing-invoices/${late.body.data.id}/force`);
    before_ = await snapshot();
  });

  it('money cannot overflow: amounts and line nets are bounded', async () => {
    const invoice = (item: Record<string, unknown>) =>
      api.post('/outgoing-invoices', {
        client_id: w.clients.alpha,
        line_items: [{ title: 'a', quantity: 1, unit_price: 1, tax_rate: 19, ...item }],
      });
    refused(await invoice({ quantity: 1e9, unit_price: 1e11 }), ['line_items.0.unit_price']);
    refused(await invoice({ quantity: 1e9, unit_price: 1e9 }), ['line_items.0.quantity']);
    refused(await invoice({ quantity: 1e10 }), ['line_items.0.quantity']);
    refused(await invoice({ tax_rate: 101 }), ['line_items.0.tax_rate']);
    refused(await invoice({ discount: -1 }), ['line_items.0.discount']);
    const many = Array.from({ length: 11 }, () => ({
      title: 'a',
      quantity: 1,
      unit_price: 1e9,
      tax_rate: 19,
    }));
    refused(await api.post('/outgoing-invoices', { client_id: w.clients.alpha, line_items: many }), [
      'line_items',
    ]);
    const most = await api.post('/outgoing-invoices', {
      client_id: w.clients.alpha,
      line_items: many.slice(1),
    });
    assert.equal(most.status, 201, most.text);
    assert.equal(most.body.data.net_total, 1e10);
    assert.equal(most.body.data.gross_total, 1.19e10);
    await api.delete(`/outgoing-invoices/${most.body.data.id}/force`);
    before_ = await snapshot();
  });

  it('a path that exists with another method is a 405 with Allow', async () => {
    const res = await api.request('DELETE', '/clients');
    expectProblem(res, 405, 'method_not_allowed');
    assert.equal(res.headers.allow, 'GET, HEAD, POST');
    const put = await api.request('PUT', `/clients/${w.clients.alpha}`, {});
    expectProblem(put, 405, 'method_not_allowed');
    assert.equal(put.headers.allow, 'DELETE, GET, HEAD, PATCH');
    expectProblem(await api.get('/no-such-thing'), 404, 'not_found');
  });

  it('a path parameter beyond the router limit is a 414', async () => {
    expectProblem(await api.get(`/clients/${'1'.repeat(300)}`), 414, 'uri_too_long');
  });

  it('malformed multipart on every upload route is a 400 invalid_multipart', async () => {
    const routes = [
      `/tasks/${w.tasks.shop}/upload`,
      `/tasks/comments/${commentId}/upload`,
      '/incoming-invoices',
      '/incoming-invoices/check-duplicate',
      '/outgoing-invoices/external',
    ];
    const form = await multipart({ name: 'a.pdf', type: 'application/pdf', data: '%PDF-1.4 x' });
    const unclosed = form.body.subarray(0, form.body.length - 10);
    for (const path of routes) {
      expectProblem(
        await api.request('POST', path, 'x', { 'content-type': 'multipart/form-data' }),
        400,
        'invalid_multipart',
      );
      expectProblem(await api.request('POST', path, unclosed, form.headers), 400, 'invalid_multipart');
    }
    assert.deepEqual(await snapshot(), before_);
  });

  it('an undeclared multipart text part is a 422 naming it', async () => {
    const form = await multipart({ name: 'a.txt', type: 'text/plain', data: 'x' }, { note: 'hi' });
    refused(await api.request('POST', `/tasks/${w.tasks.shop}/upload`, form.body, form.headers), ['note']);
    const data = await multipart(
      { name: 'a.pdf', type: 'application/pdf', data: '%PDF-1.4 x' },
      { data: JSON.stringify({ document_type: 'Invoice', colour: 'red' }) },
    );
    refused(await api.request('POST', '/incoming-invoices', data.body, data.headers), ['colour']);
    const external = await multipart(
      { name: 'a.pdf', type: 'application/pdf', data: '%PDF-1.4 x' },
      {
        data: JSON.stringify({
          invoice_number: 'EXT-1',
          client_id: w.clients.alpha,
          date: '2026-01-01',
          line_items: [{ title: 'a', quantity: 1, unit_price: 1, tax_rate: 19 }],
          colour: 'red',
        }),
      },
    );
    refused(await api.request('POST', '/outgoing-invoices/external', external.body, external.headers), [
      'data.colour',
    ]);
    assert.deepEqual(await snapshot(), before_);
  });

  it('the incoming-invoice routes without a body are a 422, not a 500', async () => {
    for (const path of ['/incoming-invoices', '/incoming-invoices/check-duplicate']) {
      refused(await api.request('POST', path), ['body']);
      expectProblem(
        await api.request('POST', path, '', { 'content-type': 'application/json' }),
        400,
        'invalid_json',
      );
    }
    assert.deepEqual(await snapshot(), before_);
  });

  it('over a real socket: a slow body is a 408, an overlong URL a 414, both problem+json', async () => {
    const app = await buildApp(testConfig({ requestTimeoutSeconds: 1 }), { db: ctx.handle, logger: false });
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.server.address() as { port: number };
      const started = Date.now();
      const slow = await rawExchange(port, (s) =>
        s.write(
          'POST /api/v1/oauth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"grant_type":',
        ),
      );
      assert.equal(slow.status, 408);
      assert.match(slow.headers, /content-type: application\/problem\+json/);
      assert.equal(JSON.parse(slow.body).code, 'request_timeout');
      assert.ok(Date.now() - started < 5000, 'answered within a few seconds');

      const long = await rawExchange(port, (s) =>
        s.write(`GET /api/v1/clients?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`),
      );
      assert.equal(long.status, 414);
      assert.match(long.headers, /content-type: application\/problem\+json/);
      assert.equal(JSON.parse(long.body).code, 'uri_too_long');

      const headers = await rawExchange(port, (s) =>
        s.write(`GET /api/v1/clients HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
      );
      assert.equal(headers.status, 431);
      assert.equal(JSON.parse(headers.body).code, 'header_too_large');
    } finally {
      await app.close();
    }
    assert.deepEqual(await snapshot(), before_);
  });
});
