import assert from 'node:assert/strict';
import { beforeEach, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { silentLogger } from '../src/shared/job-loop.js';
import { type Lease, ScheduledJob } from '../src/shared/scheduled-job.js';
import { describeEachDb } from './helpers.js';

const MINUTE = 60_000;
const LEASE_MS = 10 * MINUTE;

/**
 * Lease renewal of ScheduledJob on both databases, with an injectable clock: a run that
 * outlasts its lease keeps the job while it renews, and a run whose lease is lost stops and is
 * not recorded as run.
 */
describeEachDb('scheduled job leases', (ctx) => {
  let t = 0;
  const clock = { now: () => new Date(t) };
  const row = () =>
    ctx.db
      .selectFrom('scheduled_jobs')
      .selectAll()
      .where('name', '=', 'lease-test')
      .executeTakeFirstOrThrow();
  /** A job whose run is `work`, renewing every 5 ms of real time. */
  const job = (work: (lease: Lease) => Promise<void>, renewEveryMs = 5) =>
    new ScheduledJob(ctx.db, {
      name: 'lease-test',
      everyMs: 60 * MINUTE,
      leaseMs: LEASE_MS,
      checkMs: MINUTE,
      renewEveryMs,
      clock,
      logger: silentLogger,
      run: (_now, lease) => work(lease),
    });
  /** Waits (real time) until `cond` holds. */
  const until = async (what: string, cond: () => Promise<boolean>) => {
    for (let i = 0; i < 400; i++) {
      if (await cond()) return;
      await sleep(5);
    }
    assert.fail(`timed out waiting for ${what}`);
  };
  const leaseEnd = async () => new Date((await row()).lease_until ?? 0).getTime();

  beforeEach(async () => {
    t = Date.parse('2026-06-01T08:00:00.000Z');
    await ctx.db.deleteFrom('scheduled_jobs').where('name', '=', 'lease-test').execute();
  });

  it('a run that outlasts its lease renews it: no other process takes the job, and the run is recorded', async () => {
    const start = t;
    const pieces: number[] = [];
    const a = job(async (lease) => {
      // Three lease lengths of work, a piece each 4 minutes of the clock.
      for (let i = 0; i < 8; i++) {
        assert.ok(lease.held(), `piece ${i}`);
        t += 4 * MINUTE;
        await until('a renewal', async () => (await leaseEnd()) === t + LEASE_MS);
        assert.equal(await job(async () => assert.fail('a second run')).tick(), false, 'taken while renewed');
        pieces.push(i);
      }
    });
    assert.equal(await a.tick(), true);
    assert.equal(pieces.length, 8);
    const r = await row();
    assert.equal(r.lease_holder, null);
    assert.equal(r.lease_until, null);
    assert.equal(new Date(r.last_run_at ?? 0).getTime(), start + 32 * MINUTE);
  });

  it('a lease another process took over is lost: the run stops and is not recorded', async () => {
    let committed = 0;
    const a = job(async (lease) => {
      for (let i = 0; i < 100 && lease.held(); i++) {
        committed++;
        if (i === 2) {
          // Another process took the job (as after a lease that ran out while this one stalled).
          await ctx.db
            .updateTable('scheduled_jobs')
            .set({ lease_holder: 'another process', lease_until: new Date(t + LEASE_MS).toISOString() })
            .where('name', '=', 'lease-test')
            .execute();
          await until('the lost lease', async () => lease.signal.aborted);
        }
      }
    });
    assert.equal(await a.tick(), false);
    assert.equal(committed, 3, 'no piece after the lease was lost');
    const r = await row();
    assert.equal(r.lease_holder, 'another process', 'the other holder keeps it');
    assert.equal(r.last_run_at, null, 'not recorded as run');
  });

  it('a lease that runs out by the clock before a renewal got through is lost, and a thrown abort is no failure', async () => {
    // Renewals far apart (real time): the clock passes the lease's end first.
    const a = job(async (lease) => {
      assert.ok(lease.held());
      t += LEASE_MS;
      assert.equal(lease.held(), false);
      assert.ok(lease.signal.aborted);
      lease.signal.throwIfAborted();
    }, 60_000);
    assert.equal(await a.tick(), false);
    assert.equal((await row()).last_run_at, null);
    // The job is free for the next process at once: its lease ended.
    t += 1;
    let ran = false;
    assert.equal(
      await job(async () => {
        ran = true;
      }).tick(),
      true,
    );
    assert.ok(ran);
  });
});
