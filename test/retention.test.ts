import assert from 'node:assert/strict';
import { beforeEach, it } from 'node:test';
import { RETENTION, retentionJob } from '../src/retention.js';
import { silentLogger, type WorkerLogger } from '../src/shared/job-loop.js';
import { connectAgain, describeEachDb } from './helpers.js';
import { record } from './webhooks.support.js';

const HOUR = 3600_000;
const DAY = 24 * HOUR;

/**
 * The retention job on both databases, with an injectable clock: one run for the whole service
 * (a lease in the database, not a timer per process), and what it prunes and keeps.
 */
describeEachDb('retention', (ctx) => {
  let t = 0;
  const clock = { now: () => new Date(t) };
  const job = (days = 30, logger: WorkerLogger = silentLogger, db = ctx.db) =>
    retentionJob(db, logger, { webhookDeliveryRetentionDays: days, clock });
  /** A logger that keeps each step's line (`retention: step`) and calls `onStep` after it. */
  const stepsLog = (onStep: (table: string) => void = () => {}) => {
    const steps: { table: string; deleted: number }[] = [];
    const logger: WorkerLogger = {
      ...silentLogger,
      info(obj, msg) {
        if (msg !== 'retention: step') return;
        steps.push(obj as (typeof steps)[number]);
        onStep(steps.at(-1)!.table);
      },
    };
    return { steps, logger };
  };

  beforeEach(async () => {
    t = Date.now();
    await ctx.db.deleteFrom('scheduled_jobs').execute();
  });

  it('runs once for all processes: one takes the lease, the next run is due an hour later', async () => {
    const [a, b] = [job(), job()];
    const ran = await Promise.all([a.tick(), b.tick(), job().tick()]);
    assert.equal(ran.filter(Boolean).length, 1, String(ran));
    assert.equal(await a.tick(), false, 'not due yet');
    t += 59 * 60_000;
    assert.equal(await b.tick(), false, 'not due after 59 minutes');
    t += 60_000;
    const again = await Promise.all([a.tick(), b.tick()]);
    assert.equal(again.filter(Boolean).length, 1);
    // A process restarted meanwhile (a new job object) does not run it again either.
    assert.equal(await job().tick(), false);
  });

  it('a holder that died mid-run keeps the job until its lease runs out; then another runs it', async () => {
    await ctx.db
      .insertInto('scheduled_jobs')
      .values({
        name: 'retention',
        lease_holder: 'a process that died',
        lease_until: new Date(t + 10 * 60_000).toISOString(),
        last_run_at: new Date(t - 2 * DAY).toISOString(),
      })
      .execute();
    assert.equal(await job().tick(), false, 'leased');
    t += 10 * 60_000 + 1;
    assert.equal(await job().tick(), true, 'taken over');
    const row = await ctx.db.selectFrom('scheduled_jobs').selectAll().executeTakeFirstOrThrow();
    assert.equal(row.lease_holder, null);
    assert.equal(new Date(row.last_run_at!).getTime(), t);
  });

  it('prunes idempotency keys after 24 h and finished deliveries after the configured days; keeps pending ones and the audit log', async () => {
    const api = await ctx.as('client:write client:read integration');
    for (const key of ['old-key', 'young-key']) {
      const res = await api.post('/clients', { name: key }, { 'idempotency-key': key });
      assert.equal(res.status, 201, res.text);
    }
    const keyAt = (key: string, at: number) =>
      ctx.db
        .updateTable('idempotency_keys')
        .set({ created_at: new Date(at).toISOString() })
        .where('key', '=', key)
        .execute();
    await keyAt('old-key', t - 25 * HOUR);
    await keyAt('young-key', t - 23 * HOUR);

    const hook = await api.post('/webhooks', { url: 'http://127.0.0.1:9/hook', scopes: ['task:create'] });
    assert.equal(hook.status, 201, hook.text);
    for (let id = 1; id <= 4; id++) await record(ctx.db, ctx.account.accountId, 'task:created', { id });
    const deliveries = await ctx.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('webhook_id', '=', hook.body.data.id)
      .orderBy('id')
      .execute();
    assert.equal(deliveries.length, 4);
    const set = (i: number, status: 'delivered' | 'failed' | 'pending', daysAgo: number) =>
      ctx.db
        .updateTable('webhook_deliveries')
        .set({ status, created_at: new Date(t - daysAgo * DAY).toISOString() })
        .where('id', '=', deliveries[i]!.id)
        .execute();
    await set(0, 'delivered', 31);
    await set(1, 'failed', 31);
    await set(2, 'delivered', 29);
    await set(3, 'pending', 40);
    const audit = await ctx.db
      .selectFrom('audit_log')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();

    assert.equal(await job(30).tick(), true);
    const keys = await ctx.db.selectFrom('idempotency_keys').select('key').execute();
    assert.deepEqual(
      keys.map((k) => k.key).filter((k) => k.endsWith('-key')),
      ['young-key'],
    );
    const left = async () =>
      (
        await ctx.db
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('webhook_id', '=', hook.body.data.id)
          .orderBy('id')
          .execute()
      ).map((d) => d.id);
    assert.deepEqual(
      await left(),
      [deliveries[2]!.id, deliveries[3]!.id],
      'finished ones older than 30 days go',
    );

    // WEBHOOK_DELIVERY_RETENTION_DAYS=7, an hour later.
    t += HOUR;
    assert.equal(await job(7).tick(), true);
    assert.deepEqual(await left(), [deliveries[3]!.id], 'a pending delivery stays however old');
    const auditAfter = await ctx.db
      .selectFrom('audit_log')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(auditAfter.n), Number(audit.n), 'the audit log is not pruned');
  });

  it('a run whose lease another process takes over mid-run stops; the other prunes the rest, nothing twice', async () => {
    const api = await ctx.as('client:write client:read integration');
    const res = await api.post('/clients', { name: 'takeover-key' }, { 'idempotency-key': 'takeover-key' });
    assert.equal(res.status, 201, res.text);
    await ctx.db
      .updateTable('idempotency_keys')
      .set({ created_at: new Date(t - 25 * HOUR).toISOString() })
      .where('key', '=', 'takeover-key')
      .execute();
    const hook = await api.post('/webhooks', { url: 'http://127.0.0.1:9/hook', scopes: ['task:create'] });
    assert.equal(hook.status, 201, hook.text);
    await record(ctx.db, ctx.account.accountId, 'task:created', { id: 1 });
    const delivery = () =>
      ctx.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('webhook_id', '=', hook.body.data.id)
        .execute();
    await ctx.db
      .updateTable('webhook_deliveries')
      .set({ status: 'delivered', created_at: new Date(t - 31 * DAY).toISOString() })
      .where('webhook_id', '=', hook.body.data.id)
      .execute();

    // Another process (its own connection on PostgreSQL) takes the job once the first has pruned
    // the keys and stalled past its lease.
    const second = ctx.kind === 'postgres' ? connectAgain(ctx.handle) : undefined;
    const other = stepsLog();
    let taking: Promise<boolean> | undefined;
    const first = stepsLog(() => {
      if (taking) return;
      t += RETENTION.leaseMs + 1;
      taking = job(30, other.logger, second?.db).tick();
    });
    try {
      assert.equal(await job(30, first.logger).tick(), false, 'the first run stopped');
      assert.deepEqual(
        first.steps.map((s) => s.table),
        ['idempotency_keys'],
        'nothing after the lease was lost',
      );
      assert.ok(first.steps[0]!.deleted >= 1);
      assert.equal(await taking, true, 'the other process ran it to the end');
    } finally {
      await second?.destroy();
    }
    assert.deepEqual(
      other.steps.map((s) => s.table),
      ['idempotency_keys', 'webhook_deliveries', 'change_log', 'events'],
    );
    assert.equal(other.steps[0]!.deleted, 0, 'the keys were pruned once, by the first');
    assert.ok(other.steps[1]!.deleted >= 1);
    assert.deepEqual(await delivery(), [], 'the old delivery went');
    const keys = await ctx.db
      .selectFrom('idempotency_keys')
      .select('key')
      .where('key', '=', 'takeover-key')
      .execute();
    assert.deepEqual(keys, []);
    const row = await ctx.db.selectFrom('scheduled_jobs').selectAll().executeTakeFirstOrThrow();
    assert.equal(row.lease_holder, null);
    assert.equal(new Date(row.last_run_at!).getTime(), t, 'recorded by the other');
  });
});
