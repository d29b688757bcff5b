import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { operationIdFor } from '../src/plugins/operation-ids.js';
import { ERROR_CODES } from '../src/shared/errors.js';
import { describeEachDb } from './helpers.js';

/**
 * The published operationIds: generated clients name their functions after them, so one that
 * was published never changes. New operations are added here with
 * `UPDATE_OPERATION_IDS=1 node --import tsx --test test/openapi-complete.test.ts`.
 */
const SNAPSHOT = new URL('./openapi-operation-ids.snapshot.txt', import.meta.url);

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function operations(doc: any) {
  const ops: { method: string; path: string; op: any }[] = [];
  for (const [path, item] of Object.entries<Record<string, unknown>>(doc.paths))
    for (const method of METHODS) if (item[method]) ops.push({ method, path, op: item[method] });
  return ops;
}

describeEachDb('openapi document, complete and exact', (ctx) => {
  let doc: any;
  it('is served with relative servers, so /docs works on any host name', async () => {
    const res = await ctx.anon.get('/openapi.json');
    assert.equal(res.status, 200);
    doc = res.body;
    assert.deepEqual(
      doc.servers.map((s: { url: string }) => s.url),
      ['/'],
    );
    const flows = doc.components.securitySchemes.oauth2.flows;
    assert.equal(flows.clientCredentials.tokenUrl, '/oauth/token');
    assert.ok(!JSON.stringify(doc).includes('http://localhost'), 'no absolute address of this host');
    // The reference page reads its own copy: the same relative server, whatever Host was used.
    const page = await ctx.app.inject({ url: '/docs/json', headers: { host: '127.0.0.1:3000' } });
    assert.equal(page.statusCode, 200);
    assert.deepEqual(page.json().servers, doc.servers);
  });

  it('names every operation with a unique operationId that never changes', () => {
    const ids = new Map<string, string>();
    for (const { method, path, op } of operations(doc)) {
      assert.match(
        op.operationId ?? '',
        /^[a-z][A-Za-z0-9]+$/,
        `${method} ${path} has a readable operationId`,
      );
      assert.ok(!ids.has(op.operationId), `${op.operationId} is unique (${ids.get(op.operationId)})`);
      ids.set(op.operationId, `${method.toUpperCase()} ${path}`);
    }
    const current = [...ids].map(([id, where]) => `${id} ${where}`).sort();
    if (process.env.UPDATE_OPERATION_IDS) writeFileSync(SNAPSHOT, `${current.join('\n')}\n`);
    const published = readFileSync(SNAPSHOT, 'utf8').split('\n').filter(Boolean);
    const have = new Set(current);
    const changed = published.filter((line) => !have.has(line));
    assert.deepEqual(changed, [], 'published operations keep their operationId (and exist)');
    assert.ok(published.length >= 110, `${published.length} published operations`);
    for (const id of [
      'listClients',
      'getClient',
      'createClient',
      'updateClient',
      'deleteClient',
      'bookOutgoingInvoice',
    ])
      assert.ok(ids.has(id), id);
  });

  it('derives operationIds by rule for routes added later', () => {
    assert.equal(operationIdFor('GET', '/api/v1/account/profile'), 'getAccountProfile');
    assert.equal(operationIdFor('PATCH', '/api/v1/account/profile'), 'updateAccountProfile');
    assert.equal(operationIdFor('GET', '/api/v1/changes'), 'listChanges');
    assert.equal(operationIdFor('POST', '/api/v1/things/:id/archive-all'), 'createThingArchiveAll');
    assert.equal(operationIdFor('POST', '/api/v1/things/:id/verify-email'), 'verifyThingEmail');
    assert.equal(operationIdFor('GET', '/api/v1/companies/:id/addresses'), 'listCompanyAddresses');
  });

  it('lists the tags in the order of the specification', () => {
    const names = doc.tags.map((t: { name: string }) => t.name);
    const spec = [
      'Users',
      'Clients',
      'Projects',
      'Tasks',
      'Task comments',
      'Efforts',
      'Contacts',
      'Companies',
    ];
    const more = ['Offers', 'Outgoing invoices', 'Incoming invoices', 'Chart of accounts', 'Payments'];
    const rest = [
      'User groups',
      'Suppliers',
      'Settings',
      'Integration',
      'Files',
      'Custom fields',
      'Webhooks',
    ];
    const order = [...spec, ...more, ...rest].map((t) => names.indexOf(t));
    assert.ok(!order.includes(-1), `every section is a tag: ${names.join(', ')}`);
    assert.deepEqual(
      order,
      [...order].sort((a, b) => a - b),
      names.join(', '),
    );
    const used = new Set(operations(doc).flatMap(({ op }) => op.tags ?? []));
    assert.deepEqual(
      [...used].filter((t) => !names.includes(t)),
      [],
      'every tag used is listed',
    );
  });

  it('declares the headers the service sends and reads', () => {
    const op = (path: string, method = 'get') => doc.paths[`/api/v1${path}`][method];
    const create = op('/clients', 'post');
    assert.ok(create.parameters.some((p: { name: string }) => p.name === 'Idempotency-Key'));
    assert.ok(create.responses['201'].headers.Location);
    assert.ok(create.responses['201'].headers['Idempotent-Replayed']);
    assert.ok(create.responses['409'].headers['Retry-After'], '409 idempotency_in_progress has Retry-After');
    assert.ok(op('/clients').responses['200'].headers.Link);
    for (const { path, op: o } of operations(doc).filter(({ path }) => path.startsWith('/api/v1/'))) {
      for (const [status, r] of Object.entries<{ headers?: Record<string, unknown> }>(o.responses)) {
        assert.ok(r.headers?.RateLimit && r.headers['RateLimit-Policy'], `${path} ${status} RateLimit`);
        if (status === '429' || status === '503') assert.ok(r.headers['Retry-After'], `${path} ${status}`);
        if (status === '401') assert.ok(r.headers['WWW-Authenticate'], `${path} 401 WWW-Authenticate`);
      }
    }
    const pdf = op('/outgoing-invoices/{id}/pdf');
    assert.ok(pdf.parameters.some((p: { name: string }) => p.name === 'Range'));
    assert.ok(pdf.responses['206'].headers['Content-Range'] && pdf.responses['200'].headers.ETag);
    for (const name of [
      'RateLimit',
      'RateLimit-Policy',
      'Retry-After',
      'WWW-Authenticate',
      'Location',
      'Link',
    ])
      assert.ok(doc.components.headers[name], name);
  });

  it('declares the statuses of the issue with their problem codes', () => {
    const codes = (path: string, method: string, status: number) =>
      doc.paths[`/api/v1${path}`][method].responses[status]?.['x-problem-codes'] ?? [];
    assert.ok(codes('/outgoing-invoices/{id}/book', 'post', 409).includes('already_booked'));
    assert.ok(codes('/outgoing-invoices/{id}/book', 'post', 409).includes('invoice_number_taken'));
    assert.ok(codes('/outgoing-invoices/{id}', 'patch', 409).includes('invoice_booked'));
    assert.ok(codes('/outgoing-invoices/{id}', 'delete', 409).includes('invoice_booked'));
    assert.ok(codes('/outgoing-invoices/external', 'post', 409).includes('invoice_number_taken'));
    assert.ok(codes('/payments/outgoing-invoice-credit', 'post', 409).includes('conflict'));
    for (const s of [409, 413, 415]) assert.ok(codes('/clients', 'post', s).length > 0, `POST /clients ${s}`);
    assert.deepEqual(codes('/clients/{id}', 'get', 401), ['invalid_token', 'unauthorized']);
    assert.ok(doc.paths['/api/v1/oauth/token'].post.responses['401'].headers['WWW-Authenticate']);
    // Every problem answer's schema narrows `code` to the codes it names.
    for (const { path, method, op } of operations(doc)) {
      for (const [status, r] of Object.entries<Record<string, any>>(op.responses)) {
        const media = r.content?.['application/problem+json'];
        if (!media) continue;
        const listed = r['x-problem-codes'];
        assert.ok(listed?.length, `${method} ${path} ${status} names its codes`);
        for (const c of listed)
          assert.equal(ERROR_CODES[c as keyof typeof ERROR_CODES]?.status, Number(status));
        assert.deepEqual(media.schema.allOf[1].properties.code.enum, listed);
      }
    }
  });

  it('names every code of the error registry somewhere', () => {
    const text = JSON.stringify(doc);
    const unnamed = Object.keys(ERROR_CODES).filter(
      (c) => !text.includes(`\`${c}\``) && !text.includes(`"${c}"`),
    );
    assert.deepEqual(unnamed, []);
  });

  it('has examples on the main schemas that match them', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ $id: 'https://doc.example/openapi', components: doc.components });
    for (const name of [
      'ClientFullData',
      'Project',
      'Task',
      'Contact',
      'Company',
      'OutgoingInvoice',
      'Problem',
    ]) {
      const schema = doc.components.schemas[name];
      assert.ok(schema.examples?.length, `${name} has an example`);
      const validate = ajv.compile({ $ref: `https://doc.example/openapi#/components/schemas/${name}` });
      assert.ok(
        validate(schema.examples[0]),
        `${name} example (npm run openapi:examples): ${JSON.stringify(validate.errors)}`,
      );
    }
  });
});
