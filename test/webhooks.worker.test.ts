import assert from 'node:assert/strict';
import { after, afterEach, before, it } from 'node:test';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { createDb, type DbHandle } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { revokeIntegration } from '../src/modules/integration/integration.service.js';
import type { ClaimedDelivery } from '../src/modules/webhooks/webhooks.queue.js';
import { WebhookWorker, type WebhookWorkerOptions } from '../src/modules/webhooks/webhooks.worker.js';
import { startBackgroundWork } from '../src/worker-hooks.js';
import { Api, describeEachDb, pgUrlFor, testConfig } from './helpers.js';
import { Receiver, record, sleep, waitFor } from './webhooks.support.js';

/** Counts what it claims, to show that two workers share the work without overlap. */
class CountingWorker extends WebhookWorker {
  claimed: number[] = [];
  override async claim(limit: number): Promise<ClaimedDelivery[]> {
    const rows = await super.claim(limit);
    this.claimed.push(...rows.map((r) => r.id));
    return rows;
  }
}

describeEachDb('webhooks: worker', (ctx) => {
  let api: Api;
  let receiver: Receiver;
  let workers: WebhookWorker[] = [];
  let second: DbHandle | undefined;
  let path = 0;

  const options = (opts: Partial<WebhookWorkerOptions> = {}): WebhookWorkerOptions => ({
    secretKey: ctx.app.config.secretKey,
    allowPrivate: true,
    pollIntervalMs: 10,
    retryDelaysMs: [0, 30, 30, 30],
    ...opts,
  });
  const worker = (opts: Partial<WebhookWorkerOptions> = {}, db = ctx.db) => {
    const w = new CountingWorker(db, ctx.kind, options(opts));
    workers.push(w);
    return w;
  };
  const register = async (scopes: string[], as: Api = api, base = receiver.url) => {
    const p = `/hook/${++path}`;
    const res = await as.post('/webhooks', { url: `${base}${p}`, scopes });
    assert.equal(res.status, 201, res.text);
    return { ...res.body.data, path: p } as { id: number; signature_secret_key: string; path: string };
  };
  const rows = (webhookId: number) =>
    ctx.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('webhook_id', '=', webhookId)
      .orderBy('id')
      .execute();

  before(async () => {
    api = await ctx.as('integration');
    receiver = await new Receiver().start();
    if (ctx.kind === 'postgres') {
      // A second connection pool on the same database plays a second server process.
      const { rows } = await sql<{ d: string }>`select current_database() as d`.execute(ctx.db);
      second = createDb({ kind: 'postgres', url: pgUrlFor(rows[0]!.d) });
    }
  });
  afterEach(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    workers = [];
    receiver.respond = () => 200;
    await ctx.db.deleteFrom('webhooks').execute();
  });
  after(async () => {
    await receiver.stop();
    await second?.db.destroy();
  });

  it('a claim whose worker died is picked up again when its lease expires', async () => {
    const hook = await register(['task:create']);
    await record(ctx.db, ctx.account.accountId, 'task:created', { id: 1 });
    // A lease long enough to still hold when the other worker looks, on a busy machine too.
    const dead = worker({ leaseMs: 1500 });
    const claimed = await dead.claim(10);
    assert.equal(claimed.length, 1);
    // The dead worker never sends; while its lease holds nobody else takes the delivery.
    const alive = worker();
    assert.equal(await alive.runOnce(), 0);
    assert.equal(receiver.on(hook.path).length, 0);
    await sleep(1600);
    assert.equal(await alive.runOnce(), 1);
    assert.equal(receiver.on(hook.path).length, 1);
    assert.equal(receiver.on(hook.path)[0]!.headers['webhook-id'], claimed[0]!.message_id);
    const [d] = await rows(hook.id);
    assert.equal(d!.status, 'delivered');
    assert.equal(d!.attempts, 2, 'the lost attempt counts');
    assert.equal(d!.lease_token, null);
  });

  it('a claim is renewed while its attempt outlasts the lease: no other worker sends it again', async () => {
    const hook = await register(['task:create']);
    // Leases of a second, renewed every fifth: long enough that no renewal is missed on a busy
    // machine (a PostgreSQL commit stalled for 400 ms behind the test suite's CREATE DATABASE
    // once let a 500 ms lease lapse, and the other worker took the delivery, as it should then).
    receiver.respond = () => ({ status: 200, delayMs: 2500 }); // two and a half leases long
    for (let i = 1; i <= 2; i++) await record(ctx.db, ctx.account.accountId, 'task:created', { id: i });
    worker({ leaseMs: 1000 }).start();
    worker({ leaseMs: 1000 }, second?.db ?? ctx.db).start();
    await waitFor('both deliveries', () => receiver.on(hook.path).length === 2, 15_000);
    await waitFor(
      'both recorded as delivered',
      async () => (await rows(hook.id)).every((d) => d.status === 'delivered'),
      15_000,
    );
    // More than a lease: a delivery sent again would arrive by now.
    await sleep(1200);
    const got = receiver.on(hook.path);
    assert.deepEqual(
      got.map((r) => JSON.parse(r.body).data.id),
      [1, 2],
      'each sent once, in order',
    );
    assert.equal(receiver.maxConcurrent.get(hook.path), 1);
    assert.deepEqual(
      (await rows(hook.id)).map((d) => [d.status, d.attempts]),
      [
        ['delivered', 1],
        ['delivered', 1],
      ],
    );
  });

  it('two workers (two connection pools on PostgreSQL) deliver each event once, one at a time per webhook', async () => {
    const hooks: { path: string }[] = [];
    for (let i = 0; i < 4; i++) hooks.push(await register(['task:update']));
    receiver.respond = () => ({ status: 200, delayMs: 2 });
    for (let i = 1; i <= 30; i++) await record(ctx.db, ctx.account.accountId, 'task:updated', { id: i });
    // Two webhooks at a time each: one worker alone cannot hold all four, so both take part.
    const a = worker({ concurrency: 2 });
    const b = worker({ concurrency: 2 }, second?.db ?? ctx.db);
    a.start();
    b.start();
    const sent = () => hooks.reduce((n, h) => n + receiver.on(h.path).length, 0);
    await waitFor('120 deliveries', () => sent() >= 120, 15_000);
    await sleep(150);
    assert.equal(sent(), 120);
    for (const h of hooks) {
      const got = receiver.on(h.path);
      assert.equal(new Set(got.map((r) => r.headers['webhook-id'])).size, 30);
      assert.deepEqual(
        got.map((r) => JSON.parse(r.body).data.id),
        Array.from({ length: 30 }, (_, i) => i + 1),
        'in event order',
      );
      assert.equal(receiver.maxConcurrent.get(h.path), 1);
    }
    const all = [...a.claimed, ...b.claimed];
    assert.equal(all.length, 120);
    assert.equal(new Set(all).size, 120, 'no delivery was claimed twice');
    if (ctx.kind === 'postgres') {
      assert.ok(a.claimed.length > 0 && b.claimed.length > 0, `${a.claimed.length}/${b.claimed.length}`);
    }
  });

  it('concurrent claims never hand out the same delivery, nor one webhook to two claims', async () => {
    for (let i = 0; i < 6; i++) await register(['comment:update']);
    for (let i = 1; i <= 5; i++) await record(ctx.db, ctx.account.accountId, 'comment:updated', { id: i });
    const a = worker({ runLength: 5 });
    const b = worker({ runLength: 5 }, second?.db ?? ctx.db);
    const claims = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).claim(2)));
    const ids = claims.flat().map((c) => c.id);
    assert.equal(ids.length, 30);
    assert.equal(new Set(ids).size, 30);
    const owner = new Map<number, number>();
    for (const [i, claim] of claims.entries()) {
      for (const c of claim) {
        assert.equal(owner.get(c.webhook_id) ?? i, i, 'a webhook is served by one claim at a time');
        owner.set(c.webhook_id, i);
      }
    }
    for (const webhookId of owner.keys()) {
      const run = claims.flat().filter((c) => c.webhook_id === webhookId);
      assert.equal(run.length, 5);
      assert.deepEqual(
        run.map((c) => JSON.parse(c.payload).id),
        [1, 2, 3, 4, 5],
        'a run is in event order',
      );
    }
    // Leased: nothing is claimable until the runs are recorded or their leases expire.
    assert.equal((await a.claim(10)).length, 0);
  });

  it('disables a webhook that failed every delivery for the set time, and re-enables it', async () => {
    const hook = await register(['contact:delete']);
    const healthy = await register(['contact:delete']);
    receiver.respond = (r) => (r.path === hook.path ? 500 : 200);
    const w = worker({ disableAfterMs: 200, retryDelaysMs: [0, 60, 60, 60, 60, 60, 60, 60] });
    await record(ctx.db, ctx.account.accountId, 'contact:deleted', { id: 1 });
    await record(ctx.db, ctx.account.accountId, 'contact:deleted', { id: 2 });
    w.start();
    await waitFor(
      'disabled',
      async () => (await api.get(`/webhooks/${hook.id}`)).body.data.status === 'disabled',
    );
    const shown = (await api.get(`/webhooks/${hook.id}`)).body.data;
    assert.ok(shown.disabled_at);
    assert.match(shown.disabled_reason, /every delivery failed/);
    assert.deepEqual(
      (await rows(hook.id)).map((d) => d.status),
      ['failed', 'failed'],
    );
    assert.equal((await api.get(`/webhooks/${healthy.id}`)).body.data.status, 'active');
    // Disabled: new events are not queued for it.
    await record(ctx.db, ctx.account.accountId, 'contact:deleted', { id: 3 });
    assert.equal((await rows(hook.id)).length, 2);

    receiver.respond = () => 200;
    assert.equal((await api.post(`/webhooks/${hook.id}/enable`)).body.data.status, 'active');
    await record(ctx.db, ctx.account.accountId, 'contact:deleted', { id: 4 });
    await waitFor('delivered after enabling', async () => (await rows(hook.id))[2]?.status === 'delivered');
    const row = await ctx.db.selectFrom('webhooks').selectAll().where('id', '=', hook.id).executeTakeFirst();
    assert.equal(row!.failing_since, null);
  });

  it('checks the address again at delivery time (DNS may have changed)', async () => {
    const literal = await register(['task:create']);
    const port = new URL(receiver.url).port;
    const named = await register(['task:create'], api, `http://rebind.example:${port}`);
    await record(ctx.db, ctx.account.accountId, 'task:created', { id: 1 });
    const w = worker({ allowPrivate: false, resolve: async () => ['10.0.0.7'] });
    assert.equal(await w.runOnce(), 2);
    assert.equal(receiver.requests.filter((r) => r.path === literal.path).length, 0);
    const [a] = await rows(literal.id);
    assert.equal(a!.status, 'pending');
    assert.match(a!.last_error!, /127\.0\.0\.1 is a loopback/);
    const [b] = await rows(named.id);
    assert.match(b!.last_error!, /rebind\.example resolves to 10\.0\.0\.7/);
    // The same name pointing to the receiver is reached when private addresses are allowed.
    await ctx.db
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: new Date().toISOString() })
      .execute();
    const trusting = worker({ allowPrivate: true });
    await trusting.runOnce();
    assert.equal(receiver.on(literal.path).length, 1);
  });

  it('stops delivering for a revoked integration', async () => {
    const integration = await ctx.as('integration');
    const hook = await register(['company:create'], integration);
    await record(ctx.db, ctx.account.accountId, 'company:created', { id: 1 });
    const { integrationId } = await ctx.db
      .selectFrom('webhooks')
      .select('integration_id as integrationId')
      .where('id', '=', hook.id)
      .executeTakeFirstOrThrow();
    await revokeIntegration(ctx.db, integrationId);
    await worker().runOnce();
    await record(ctx.db, ctx.account.accountId, 'company:created', { id: 2 });
    const left = await rows(hook.id);
    assert.equal(left.length, 1);
    assert.equal(left[0]!.status, 'failed');
    assert.equal(left[0]!.last_error, 'integration was revoked');
    assert.equal(receiver.on(hook.path).length, 0);
  });

  it('in the API process the worker wakes right after a successful write, not at the next poll', async () => {
    const app = await buildApp(testConfig({ runWorker: true, webhookPollMs: 60_000 }), {
      db: ctx.handle,
      logger: false,
    });
    const work = await startBackgroundWork(app);
    await app.ready();
    try {
      const hook = await register(['task:create']);
      await sleep(50);
      await record(ctx.db, ctx.account.accountId, 'task:created', { id: 1 });
      await sleep(150);
      assert.equal(receiver.on(hook.path).length, 0, 'nothing before a request wakes it');
      const token = (api as unknown as { token: string }).token;
      await new Api(app, token).post(`/webhooks/${hook.id}/rotate-secret`);
      await waitFor('woken delivery', () => receiver.on(hook.path).length === 1, 1000);
    } finally {
      await work.stop();
      await app.close();
    }
  });

  it('without RUN_WORKER the API process delivers nothing', async () => {
    const app = await buildApp(testConfig({ runWorker: false }), { db: ctx.handle, logger: false });
    const work = await startBackgroundWork(app);
    await app.ready();
    try {
      const hook = await register(['task:create']);
      await record(ctx.db, ctx.account.accountId, 'task:created', { id: 1 });
      await sleep(200);
      assert.equal(receiver.on(hook.path).length, 0);
    } finally {
      await work.stop();
      await app.close();
    }
  });
});

it('webhook worker: while the database fails it backs off and logs the first failures, not every poll; then it recovers', async () => {
  // Claiming needs the webhook tables: on a database without them every claim fails.
  const handle = createDb({ kind: 'sqlite', file: ':memory:' });
  const logged: { level: string; msg?: string }[] = [];
  const logger = {
    info: (_: object, msg?: string) => logged.push({ level: 'info', msg }),
    warn: (_: object, msg?: string) => logged.push({ level: 'warn', msg }),
    error: (_: object, msg?: string) => logged.push({ level: 'error', msg }),
  };
  const w = new WebhookWorker(handle.db, 'sqlite', {
    secretKey: 'k',
    allowPrivate: true,
    pollIntervalMs: 10,
    logger,
  });
  try {
    w.start();
    await sleep(1200);
    const errors = logged.filter((l) => l.level === 'error').length;
    // Polling every 10 ms would have failed about 120 times.
    assert.ok(errors >= 1 && errors <= 4, `${errors} error lines`);
    await migrateToLatest(handle.db);
    await waitFor(
      'recovery',
      () => logged.some((l) => l.msg === 'webhook worker: claiming works again'),
      6000,
    );
  } finally {
    await w.stop();
    await handle.destroy();
  }
});
