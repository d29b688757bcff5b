import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import * as clients from '../src/modules/clients/clients.service.js';
import {
  Api,
  countRows,
  describeEachDb,
  expectProblem,
  multipart,
  type TestContext,
  testConfig,
} from './helpers.js';
import { seedWork } from './work.fixtures.js';

describeEachDb('Idempotency-Key', (ctx) => {
  let api: Api;
  const named = (name: string) => clientsNamed(ctx, name);
  const keyRow = (key: string) =>
    ctx.db.selectFrom('idempotency_keys').selectAll().where('key', '=', key).executeTakeFirst();

  before(async () => {
    api = await ctx.as('client:write client:read');
  });

  it('replays the first answer for the same key and body, creating once', async () => {
    const before = await countRows(ctx.db, 'clients');
    const first = await api.post('/clients', { name: 'Idem' }, { 'idempotency-key': 'k-1' });
    assert.equal(first.status, 201);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const second = await api.post('/clients', { name: 'Idem' }, { 'idempotency-key': 'k-1' });
    assert.equal(second.status, 201);
    assert.deepEqual(second.body, first.body);
    assert.equal(second.headers.location, first.headers.location);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.equal(await countRows(ctx.db, 'clients'), before + 1);
  });

  it('refuses the same key with another body (422) and keeps keys per integration', async () => {
    await api.post('/clients', { name: 'A' }, { 'idempotency-key': 'k-2' });
    expectProblem(
      await api.post('/clients', { name: 'B' }, { 'idempotency-key': 'k-2' }),
      422,
      'idempotency_key_reused',
    );
    const otherIntegration = await ctx.as('client:write');
    const res = await otherIntegration.post('/clients', { name: 'B' }, { 'idempotency-key': 'k-2' });
    assert.equal(res.status, 201);
    assert.equal(res.body.data.name, 'B');
  });

  it('keeps no key for a request refused before it ran: validation, malformed body, scope', async () => {
    expectProblem(
      await api.post('/clients', { name: '' }, { 'idempotency-key': 'k-3' }),
      422,
      'validation_failed',
    );
    expectProblem(
      await api.request('POST', '/clients', '{"name": ', {
        'idempotency-key': 'k-3',
        'content-type': 'application/json',
      }),
      400,
    );
    const reader = await ctx.as('client:read');
    expectProblem(await reader.post('/clients', { name: 'Fixed' }, { 'idempotency-key': 'k-3' }), 403);
    assert.equal(await keyRow('k-3'), undefined);
    const fixed = await api.post('/clients', { name: 'Fixed' }, { 'idempotency-key': 'k-3' });
    assert.equal(fixed.status, 201);
    assert.equal(fixed.headers['idempotent-replayed'], undefined);
  });

  it('replays a refusal of the request itself (409) and leaves the data as it was', async () => {
    await api.post('/clients', { name: 'Holder', shortcode: 'IDEM9' });
    const count = await countRows(ctx.db, 'clients');
    const first = await api.post(
      '/clients',
      { name: 'Taker', shortcode: 'IDEM9' },
      { 'idempotency-key': 'k-5' },
    );
    expectProblem(first, 409);
    const again = await api.post(
      '/clients',
      { name: 'Taker', shortcode: 'IDEM9' },
      { 'idempotency-key': 'k-5' },
    );
    expectProblem(again, 409);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(await countRows(ctx.db, 'clients'), count);
  });

  it('answers 409 with Retry-After while the key is held, and frees it when the lease ends', async () => {
    const created = await api.post('/clients', { name: 'Leased' }, { 'idempotency-key': 'k-6' });
    assert.equal(created.status, 201);
    // As another process would leave it mid-request, or dead: claimed, no answer yet.
    const row = (await keyRow('k-6'))!;
    await ctx.db
      .updateTable('idempotency_keys')
      .set({
        status_code: null,
        response_body: null,
        claim: 'elsewhere',
        locked_until: new Date(Date.now() + 20_000).toISOString(),
      })
      .where('id', '=', row.id)
      .execute();
    const busy = await api.post('/clients', { name: 'Leased' }, { 'idempotency-key': 'k-6' });
    expectProblem(busy, 409, 'idempotency_in_progress');
    const wait = Number(busy.headers['retry-after']);
    assert.ok(wait >= 19 && wait <= 20, `Retry-After ${wait}`);

    await ctx.db
      .updateTable('idempotency_keys')
      .set({ locked_until: new Date(Date.now() - 1).toISOString() })
      .where('id', '=', row.id)
      .execute();
    const retried = await api.post('/clients', { name: 'Leased' }, { 'idempotency-key': 'k-6' });
    assert.equal(retried.status, 201);
    assert.equal(retried.headers['idempotent-replayed'], undefined);
    const replay = await api.post('/clients', { name: 'Leased' }, { 'idempotency-key': 'k-6' });
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.body.data.id, retried.body.data.id);
  });

  it('a key of a request that died before the lease columns existed is free (migration 820)', async () => {
    const old = await api.post('/clients', { name: 'Legacy' }, { 'idempotency-key': 'k-7' });
    await ctx.db
      .updateTable('idempotency_keys')
      .set({ status_code: null, response_body: null, claim: null, locked_until: null })
      .where('key', '=', 'k-7')
      .execute();
    const res = await api.post('/clients', { name: 'Legacy' }, { 'idempotency-key': 'k-7' });
    assert.equal(res.status, 201);
    assert.notEqual(res.body.data.id, old.body.data.id);
  });

  it('a key older than 24 h starts afresh', async () => {
    await api.post('/clients', { name: 'Old' }, { 'idempotency-key': 'k-4' });
    await ctx.db
      .updateTable('idempotency_keys')
      .set({ created_at: new Date(Date.now() - 25 * 3600 * 1000).toISOString() })
      .where('key', '=', 'k-4')
      .execute();
    const fresh = await api.post('/clients', { name: 'Old' }, { 'idempotency-key': 'k-4' });
    assert.equal(fresh.status, 201);
    assert.equal(fresh.headers['idempotent-replayed'], undefined);
  });

  it('two requests with one key at once create once, even when the lease is over at once', async () => {
    const app = await buildApp(testConfig({ idempotencyLeaseSeconds: 0 }), { db: ctx.handle, logger: false });
    try {
      const same = new Api(app, api.token);
      const answers = await Promise.all(
        [0, 1, 2].map(() => same.post('/clients', { name: 'Twice at once' }, { 'idempotency-key': 'k-8' })),
      );
      const ok = answers.filter((a) => a.status === 201);
      assert.ok(ok.length >= 1, answers.map((a) => a.status).join());
      for (const a of answers) if (a.status !== 201) expectProblem(a, 409, 'idempotency_in_progress');
      assert.equal(new Set(ok.map((a) => a.body.data.id)).size, 1);
      assert.equal(await named('Twice at once'), 1);
    } finally {
      await app.close();
    }
  });

  it('uploads hold the key as a lease outside a transaction: a slow upload blocks no write', async () => {
    const w = await seedWork(ctx);
    const writer = await ctx.as('task-management:read task-management:write client:write');
    const form = await multipart({ name: 'a.txt', type: 'text/plain', data: 'x'.repeat(4000) });
    const upload = (body: Buffer | PassThrough) =>
      writer.app.inject({
        method: 'POST',
        url: `/api/v1/tasks/${w.tasks.shop}/upload`,
        headers: {
          ...form.headers,
          'content-length': String(form.body.length),
          authorization: `Bearer ${writer.token}`,
          'idempotency-key': 'up-1',
        },
        payload: body,
      });
    const slow = new PassThrough();
    const pending = upload(slow);
    slow.write(form.body.subarray(0, 100));
    await new Promise((r) => setTimeout(r, 50));
    // The upload is under way, holding its key: another write goes through meanwhile.
    const meanwhile = await writer.post('/clients', { name: 'During upload' }, { 'idempotency-key': 'up-2' });
    assert.equal(meanwhile.status, 201);
    expectProblem(
      await writer.request('POST', `/tasks/${w.tasks.shop}/upload`, form.body, {
        ...form.headers,
        'idempotency-key': 'up-1',
      }),
      409,
      'idempotency_in_progress',
    );
    slow.end(form.body.subarray(100));
    const first = await pending;
    assert.equal(first.statusCode, 201, first.body);
    const again = await upload(form.body);
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(JSON.parse(again.body).data.id, JSON.parse(first.body).data.id);
    // A body that cannot be read keeps no key.
    const bad = await writer.request('POST', `/tasks/${w.tasks.shop}/upload`, 'garbage', {
      'content-type': 'multipart/form-data; boundary=x',
      'idempotency-key': 'up-3',
    });
    assert.ok(bad.status >= 400 && bad.status < 500, String(bad.status));
    assert.equal(await keyRow('up-3'), undefined);
  });

  describeHandlers(ctx);
});

/** Routes of a test app that show what runs inside the request's transaction. */
function describeHandlers(ctx: TestContext) {
  let app: FastifyInstance;
  let api: Api;
  let failures = 0;
  let commitCalls = 0;
  before(async () => {
    app = await buildApp(testConfig(), { db: ctx.handle, logger: false });
    // The handler writes, reads its own write back (prepared() read), then, as a request
    // that outlived its lease would find, another request takes its key over.
    app.post('/api/v1/test/taken-over', { config: { scopes: [] } }, async (req, reply) => {
      const row = await clients.createClient(app.db, req.auth, { name: 'Taken over' } as never);
      const read = await clients.getClient(app.db, req.auth, row.id);
      await app.db
        .updateTable('idempotency_keys')
        .set({ claim: 'someone else' })
        .where('key', '=', String(req.headers['idempotency-key']))
        .execute();
      return reply.code(201).send({ data: { id: read.id } });
    });
    app.post('/api/v1/test/fails', { config: { scopes: [] } }, async (req) => {
      await clients.createClient(app.db, req.auth, { name: 'Failed write' } as never);
      if (++failures === 1) throw new Error('boom');
      return { data: { failures } };
    });
    // A write the database refuses only at COMMIT (a deferred foreign key).
    await sql`create table commit_probe (client_id integer references clients(id) deferrable initially deferred)`.execute(
      ctx.db,
    );
    app.post('/api/v1/test/commit-fails', { config: { scopes: [] } }, async (req, reply) => {
      commitCalls++;
      const row = await clients.createClient(app.db, req.auth, { name: 'Commit fails' } as never);
      await sql`insert into commit_probe (client_id) values (${-row.id})`.execute(app.db);
      return reply.code(201).send({ data: { id: row.id } });
    });
    await app.ready();
    const created = await ctx.as('client:write');
    api = new Api(app, created.token);
  });
  after(() => app.close());

  it('a request that lost its key commits nothing and answers 409; the handler saw its own write', async () => {
    const res = await api.post('/test/taken-over', {}, { 'idempotency-key': 't-1' });
    expectProblem(res, 409, 'idempotency_in_progress');
    assert.ok(Number(res.headers['retry-after']) >= 1);
    assert.equal(await clientsNamed(ctx, 'Taken over'), 0);
  });

  it('a commit that fails is no 2xx, keeps nothing, and lets the key go: the retry runs', async () => {
    const first = await api.post('/test/commit-fails', {}, { 'idempotency-key': 't-3' });
    assert.ok(first.status >= 400, `answered ${first.status}`);
    assert.equal(first.headers.location, undefined);
    assert.equal(await clientsNamed(ctx, 'Commit fails'), 0);
    const retry = await api.post('/test/commit-fails', {}, { 'idempotency-key': 't-3' });
    assert.equal(retry.status, first.status);
    assert.equal(retry.headers['idempotent-replayed'], undefined);
    assert.equal(commitCalls, 2);
    assert.equal(await clientsNamed(ctx, 'Commit fails'), 0);
  });

  it('a 5xx rolls the write back and lets the key go: the retry runs', async () => {
    expectProblem(await api.post('/test/fails', {}, { 'idempotency-key': 't-2' }), 500);
    const retry = await api.post('/test/fails', {}, { 'idempotency-key': 't-2' });
    assert.equal(retry.status, 200);
    assert.equal(retry.headers['idempotent-replayed'], undefined);
    const replay = await api.post('/test/fails', {}, { 'idempotency-key': 't-2' });
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.deepEqual(replay.body, { data: { failures: 2 } });
  });
}

async function clientsNamed(ctx: TestContext, name: string): Promise<number> {
  const row = await ctx.db
    .selectFrom('clients')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
