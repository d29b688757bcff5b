import assert from 'node:assert/strict';
import { after, afterEach, before, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { WebhookWorker, type WebhookWorkerOptions } from '../src/modules/webhooks/webhooks.worker.js';
import { EVENT_KINDS } from '../src/shared/events.js';
import { type Api, describeEachDb, expectProblem } from './helpers.js';
import { Receiver, record, sleep, waitFor } from './webhooks.support.js';
import { seedWork } from './work.fixtures.js';

const ALL = [
  'task:create',
  'task:update',
  'task:delete',
  'comment:create',
  'comment:update',
  'comment:delete',
  'contact:create',
  'contact:update',
  'contact:delete',
  'company:create',
  'company:update',
  'company:delete',
  'incoming-invoice:extract',
  'dunning:create',
  'dunning:send',
  'invoice:create',
  'invoice:book',
  'invoice:delete',
  'payment:create',
  'client:create',
  'client:update',
  'client:delete',
  'invoice:send',
  'invoice:send-failed',
];

describeEachDb('webhooks: delivery', (ctx) => {
  let api: Api;
  let receiver: Receiver;
  let workers: WebhookWorker[] = [];
  let path = 0;

  const worker = (opts: Partial<WebhookWorkerOptions> = {}) => {
    const w = new WebhookWorker(ctx.db, ctx.kind, {
      secretKey: ctx.app.config.secretKey,
      allowPrivate: true,
      pollIntervalMs: 10,
      retryDelaysMs: [0, 30, 30, 30],
      ...opts,
    });
    workers.push(w);
    return w;
  };
  const register = async (scopes: string[], as: Api = api) => {
    const p = `/hook/${++path}`;
    const res = await as.post('/webhooks', { url: `${receiver.url}${p}`, scopes });
    assert.equal(res.status, 201, res.text);
    return { ...res.body.data, path: p } as { id: number; signature_secret_key: string; path: string };
  };
  const deliveries = async (webhookId: number, as: Api = api) => {
    const res = await as.get(`/webhooks/${webhookId}/deliveries?per_page=100`);
    assert.equal(res.status, 200, res.text);
    return res.body.data as {
      id: number;
      status: string;
      attempts: number;
      message_id: string;
      event: string;
      response_status: number | null;
      latency_ms: number | null;
      last_error: string | null;
    }[];
  };

  before(async () => {
    // incoming-invoice:extract carries documents, dunning:create letters: the subscriber reads them too.
    api = await ctx.as(
      'integration incoming-invoice:read dunning:read outgoing-invoice:read payments:read client:read',
    );
    receiver = await new Receiver().start();
  });
  afterEach(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    workers = [];
    receiver.respond = () => 200;
    // Each test starts without webhooks, so earlier tests' deliveries do not interfere.
    await ctx.db.deleteFrom('webhooks').execute();
  });
  after(async () => {
    await receiver.stop();
  });

  it('delivers each event kind, signed, in order, verified by standardwebhooks', async () => {
    const hook = await register(ALL);
    for (const [i, kind] of EVENT_KINDS.entries()) {
      await record(ctx.db, ctx.account.accountId, kind, {
        id: i + 1,
        name: `Resource ${i + 1}`,
        nested: { n: i },
      });
    }
    worker().start();
    await waitFor('a delivery per kind', () => receiver.on(hook.path).length === EVENT_KINDS.length);

    const verifier = new Webhook(hook.signature_secret_key);
    const got = receiver.on(hook.path);
    assert.deepEqual(
      got.map((r) => JSON.parse(r.body).event),
      [...EVENT_KINDS],
    );
    assert.ok(got.some((r) => JSON.parse(r.body).event === 'contact:update'));
    for (const [i, r] of got.entries()) {
      const body = verifier.verify(r.body, r.headers) as Record<string, unknown>;
      assert.deepEqual(Object.keys(body), ['id', 'event', 'occurred_at', 'data']);
      assert.equal(body.id, r.headers['webhook-id']);
      assert.match(String(body.id), /^msg_[0-9a-f]{32}$/);
      assert.match(String(body.occurred_at), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.deepEqual(body.data, { id: i + 1, name: `Resource ${i + 1}`, nested: { n: i } });
      assert.match(r.headers['webhook-signature']!, /^v1,[A-Za-z0-9+/]+=*$/);
      assert.ok(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000) < 10);
      assert.equal(r.headers['content-type'], 'application/json');
      // A changed body, or another secret, does not verify.
      assert.throws(() => verifier.verify(r.body.replace('Resource', 'Resourcf'), r.headers));
      assert.throws(() =>
        new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(r.body, r.headers),
      );
    }
    assert.equal(new Set(got.map((r) => r.headers['webhook-id'])).size, EVENT_KINDS.length);

    // Outcomes are recorded after the run is sent.
    await waitFor('recorded', async () => (await deliveries(hook.id)).every((d) => d.status === 'delivered'));
    const log = await deliveries(hook.id);
    assert.equal(log.length, EVENT_KINDS.length);
    for (const d of log) {
      assert.equal(d.status, 'delivered');
      assert.equal(d.attempts, 1);
      assert.equal(d.response_status, 200);
      assert.equal(typeof d.latency_ms, 'number');
    }
  });

  it('end to end: tasks and comments changed over the API arrive as the API returned them', async () => {
    const work = await seedWork(ctx);
    const hook = await register(['task:create', 'task:update', 'task:delete', 'comment:create']);
    const writer = await ctx.as('task-management:read task-management:write');
    const created = await writer.post('/tasks', { project_id: work.projects.web, name: 'Hooked task' });
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id;
    const updated = await writer.patch(`/tasks/${id}`, { name: 'Hooked task, renamed' });
    assert.equal(updated.status, 200, updated.text);
    const comment = await writer.post('/tasks/comments', { task_id: id, content: 'Looks good' });
    assert.equal(comment.status, 201, comment.text);
    assert.equal((await writer.delete(`/tasks/${id}`)).status, 204);
    worker().start();
    await waitFor('4 deliveries', () => receiver.on(hook.path).length === 4);
    const verifier = new Webhook(hook.signature_secret_key);
    const got = receiver.on(hook.path).map((r) => verifier.verify(r.body, r.headers) as any);
    assert.deepEqual(
      got.map((b) => b.event),
      ['task:created', 'task:updated', 'comment:created', 'task:deleted'],
    );
    assert.deepEqual(got[0].data, created.body.data);
    assert.deepEqual(got[1].data, updated.body.data);
    assert.deepEqual(got[2].data, comment.body.data);
    assert.equal(got[3].data.id, id);
  });

  it('sends only subscribed kinds of the webhook’s own account', async () => {
    const hook = await register(['contact:update', 'company:delete']);
    await record(ctx.db, ctx.account.accountId, 'contact:created', { id: 1 });
    await record(ctx.db, ctx.account.accountId, 'contact:update', { id: 2 });
    await record(ctx.db, ctx.other.accountId, 'contact:update', { id: 3 });
    await record(ctx.db, ctx.account.accountId, 'company:deleted', { id: 4 });
    await record(ctx.db, ctx.account.accountId, 'company:updated', { id: 5 });
    worker().start();
    await waitFor('2 deliveries', () => receiver.on(hook.path).length === 2);
    await sleep(100);
    assert.deepEqual(
      receiver.on(hook.path).map((r) => [JSON.parse(r.body).event, JSON.parse(r.body).data.id]),
      [
        ['contact:update', 2],
        ['company:deleted', 4],
      ],
    );
  });

  it('does not send events recorded before the webhook existed', async () => {
    await record(ctx.db, ctx.account.accountId, 'task:created', { id: 100 });
    const hook = await register(['task:create']);
    await record(ctx.db, ctx.account.accountId, 'task:created', { id: 101 });
    await worker().runOnce();
    await sleep(50);
    assert.deepEqual(
      receiver.on(hook.path).map((r) => JSON.parse(r.body).data.id),
      [101],
    );
  });

  it('deleting a webhook drops its pending deliveries', async () => {
    const hook = await register(['task:update']);
    await record(ctx.db, ctx.account.accountId, 'task:updated', { id: 1 });
    await record(ctx.db, ctx.account.accountId, 'task:updated', { id: 2 });
    assert.equal((await deliveries(hook.id)).length, 2);
    assert.equal((await api.delete(`/webhooks/${hook.id}`)).status, 204);
    assert.equal(await worker().runOnce(), 0);
    const left = await ctx.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('webhook_id', '=', hook.id)
      .execute();
    assert.equal(left.length, 0);
    assert.equal(receiver.on(hook.path).length, 0);
  });

  it('retries a 500 with the same webhook-id after the back-off, then succeeds', async () => {
    const hook = await register(['comment:create']);
    receiver.respond = (r) => (receiver.on(r.path).length === 1 ? 500 : 200);
    await record(ctx.db, ctx.account.accountId, 'comment:created', { id: 7, text: 'hi' });
    worker({ retryDelaysMs: [0, 150, 1000] }).start();
    await waitFor('a retry', () => receiver.on(hook.path).length === 2);
    const [first, second] = receiver.on(hook.path) as [
      (typeof receiver.requests)[0],
      (typeof receiver.requests)[0],
    ];
    assert.equal(first.headers['webhook-id'], second.headers['webhook-id']);
    assert.equal(first.body, second.body);
    assert.ok(second.at - first.at >= 140, `retried after ${second.at - first.at} ms`);
    const verifier = new Webhook(hook.signature_secret_key);
    verifier.verify(first.body, first.headers);
    verifier.verify(second.body, second.headers);
    await waitFor('delivered', async () => (await deliveries(hook.id))[0]?.status === 'delivered');
    const [d] = await deliveries(hook.id);
    assert.equal(d!.attempts, 2);
    assert.equal(d!.response_status, 200);
    assert.equal(d!.message_id, first.headers['webhook-id']);
  });

  it('a failure does not hold back later events; the failed one follows on its retry', async () => {
    const hook = await register(['task:update']);
    let failedOnce = false;
    receiver.respond = (r) => {
      if (JSON.parse(r.body).data.id === 2 && !failedOnce) {
        failedOnce = true;
        return 500;
      }
      return 200;
    };
    for (let i = 1; i <= 4; i++) await record(ctx.db, ctx.account.accountId, 'task:updated', { id: i });
    worker({ retryDelaysMs: [0, 300] }).start();
    await waitFor('all delivered', async () =>
      (await deliveries(hook.id)).every((d) => d.status === 'delivered'),
    );
    assert.deepEqual(
      receiver.on(hook.path).map((r) => JSON.parse(r.body).data.id),
      [1, 2, 3, 4, 2],
    );
    assert.deepEqual(
      (await deliveries(hook.id)).map((d) => d.attempts),
      [1, 2, 1, 1],
      'only real attempts are counted',
    );
  });

  it('retries non-2xx and connection errors, and gives up after the last attempt', async () => {
    const failing = await register(['task:delete']);
    const closed = await api.post('/webhooks', { url: 'http://127.0.0.1:9/hook', scopes: ['task:delete'] });
    receiver.respond = () => 503;
    await record(ctx.db, ctx.account.accountId, 'task:deleted', { id: 9 });
    worker({ retryDelaysMs: [0, 20, 20] }).start();
    const done = async (id: number) => (await deliveries(id))[0]?.status === 'failed';
    await waitFor('both failed', async () => (await done(failing.id)) && done(closed.body.data.id));

    assert.equal(receiver.on(failing.path).length, 3);
    assert.equal(new Set(receiver.on(failing.path).map((r) => r.headers['webhook-id'])).size, 1);
    const [f] = await deliveries(failing.id);
    assert.equal(f!.attempts, 3);
    assert.equal(f!.response_status, 503);
    // The start of the receiver's answer is kept: it usually says why.
    assert.equal(f!.last_error, 'receiver answered 503: ok');
    const [c] = await deliveries(closed.body.data.id);
    assert.equal(c!.attempts, 3);
    assert.equal(c!.response_status, null);
    assert.match(c!.last_error!, /ECONNREFUSED/);
  });

  it('an attempt that outlasts the timeout counts as failed and is retried', async () => {
    const slow = await register(['task:delete']);
    receiver.respond = (r) => (receiver.on(r.path).length === 1 ? { status: 200, delayMs: 3000 } : 200);
    await record(ctx.db, ctx.account.accountId, 'task:deleted', { id: 10 });
    // The attempt's clock starts before it connects, so the retry is timed from before the
    // worker starts, not from when the receiver saw the first attempt: on a loaded machine the
    // connection alone took 50 ms in CI, so the receiver's clock showed a retry after 551 ms.
    const started = Date.now();
    worker({ retryDelaysMs: [0, 20], timeoutMs: 600 }).start();
    await waitFor('delivered on retry', async () => (await deliveries(slow.id))[0]?.status === 'delivered');
    const got = receiver.on(slow.path);
    assert.equal(got.length, 2);
    // 600 ms timeout + 20 ms retry delay: at least 600 ms, whatever the connection took.
    assert.ok(got[1]!.at - started >= 600, `retried ${got[1]!.at - started} ms after the worker started`);
    assert.equal(got[0]!.headers['webhook-id'], got[1]!.headers['webhook-id']);
    const [d] = await deliveries(slow.id);
    assert.equal(d!.attempts, 2);
  });

  it('signs with both secrets for 24 h after a rotation', async () => {
    const hook = await register(['contact:create']);
    const rotated = (await api.post(`/webhooks/${hook.id}/rotate-secret`)).body.data;
    await record(ctx.db, ctx.account.accountId, 'contact:created', { id: 5 });
    await worker().runOnce();
    const [r] = receiver.on(hook.path);
    assert.equal(r!.headers['webhook-signature']!.split(' ').length, 2);
    new Webhook(rotated.signature_secret_key).verify(r!.body, r!.headers);
    new Webhook(hook.signature_secret_key).verify(r!.body, r!.headers);
    // Once the overlap has passed, only the new secret signs.
    await ctx.db
      .updateTable('webhooks')
      .set({ previous_secret_expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', hook.id)
      .execute();
    await record(ctx.db, ctx.account.accountId, 'contact:created', { id: 6 });
    await worker().runOnce();
    const second = receiver.on(hook.path)[1]!;
    assert.equal(second.headers['webhook-signature']!.split(' ').length, 1);
    new Webhook(rotated.signature_secret_key).verify(second.body, second.headers);
    assert.throws(() => new Webhook(hook.signature_secret_key).verify(second.body, second.headers));
  });

  it('lists deliveries and resends one with the same webhook-id', async () => {
    const hook = await register(['company:create', 'company:update']);
    await record(ctx.db, ctx.account.accountId, 'company:created', { id: 1 });
    await record(ctx.db, ctx.account.accountId, 'company:updated', { id: 1 });
    await worker().runOnce();
    await worker().runOnce();
    const log = await deliveries(hook.id);
    assert.deepEqual(
      log.map((d) => [d.event, d.status]),
      [
        ['company:created', 'delivered'],
        ['company:updated', 'delivered'],
      ],
    );
    const recent = await api.get(`/webhooks/${hook.id}/deliveries?sort=-id&status=delivered`);
    assert.deepEqual(
      recent.body.data.map((d: { id: number }) => d.id),
      [log[1]!.id, log[0]!.id],
    );
    assert.equal((await api.get(`/webhooks/${hook.id}/deliveries?status=failed`)).body.meta.total, 0);
    expectProblem(await api.get(`/webhooks/${hook.id}/deliveries?status=nope`), 422, 'validation_failed');
    const one = await api.get(`/webhooks/${hook.id}/deliveries/${log[0]!.id}`);
    assert.deepEqual(one.body.data, log[0]);

    const other = await ctx.as('integration');
    expectProblem(await other.post(`/webhooks/${hook.id}/deliveries/${log[0]!.id}/resend`), 404);
    expectProblem(await other.get(`/webhooks/${hook.id}/deliveries/${log[0]!.id}`), 404);
    expectProblem(await api.post(`/webhooks/${hook.id}/deliveries/999999/resend`), 404);

    const res = await api.post(`/webhooks/${hook.id}/deliveries/${log[0]!.id}/resend`);
    assert.equal(res.status, 202);
    assert.equal(res.body.data.status, 'pending');
    await worker().runOnce();
    const got = receiver.on(hook.path);
    assert.equal(got.length, 3);
    assert.equal(got[2]!.headers['webhook-id'], got[0]!.headers['webhook-id']);
    const again = (await deliveries(hook.id))[0]!;
    assert.equal(again.status, 'delivered');
    assert.equal(again.attempts, 2);

    await ctx.db.updateTable('webhooks').set({ active: 0 }).where('id', '=', hook.id).execute();
    expectProblem(await api.post(`/webhooks/${hook.id}/deliveries/${log[0]!.id}/resend`), 409, 'conflict');
  });
});
