import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { WorkerPool } from '../../src/shared/worker-pool.js';

type Job = { do: 'echo' | 'spin' | 'block' | 'hoard' | 'throw'; value?: number };
type Out = { echo: number; thread: number };

const makePool = (size: number, maxQueue: number, timeoutMs: number) =>
  new WorkerPool<Job, Out>({
    entry: new URL('./worker-pool.fixture.ts', import.meta.url),
    size,
    maxQueue,
    timeoutMs,
    resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 4 },
  });

describe('worker pool', () => {
  const pool = makePool(2, 2, 1000);
  after(() => pool.close());

  it('runs jobs in threads and keeps them for the next job', async () => {
    const first = await pool.run({ do: 'echo', value: 1 });
    const second = await pool.run({ do: 'echo', value: 2 });
    assert.ok(first.ok && second.ok);
    assert.equal(first.value.echo, 1);
    assert.equal(second.value.thread, first.value.thread);
  });

  it('ends a job that runs out of time, and a new thread takes the next one', async () => {
    const started = Date.now();
    assert.deepEqual(await pool.run({ do: 'spin' }), { ok: false, reason: 'timeout' });
    assert.ok(Date.now() - started < 5000);
    const next = await pool.run({ do: 'echo', value: 3 });
    assert.ok(next.ok && next.value.echo === 3);
  });

  it('ends a job whose heap outgrows the limit', async () => {
    // A pool of its own with a generous time limit: on a loaded machine filling 32 MB can take
    // longer than the 1 s the timeout test needs, and then the job would end as `timeout`.
    const roomy = makePool(1, 1, 30_000);
    try {
      assert.deepEqual(await roomy.run({ do: 'hoard' }), { ok: false, reason: 'out_of_memory' });
      assert.ok((await roomy.run({ do: 'echo', value: 4 })).ok);
    } finally {
      await roomy.close();
    }
  });

  it('a job that throws ends as crashed, not as a rejected promise', async () => {
    assert.deepEqual(await pool.run({ do: 'throw' }), { ok: false, reason: 'crashed' });
    assert.ok((await pool.run({ do: 'echo', value: 5 })).ok);
  });

  it('refuses at once when the queue is full, and never holds more than its threads', async () => {
    // Jobs that never return (blocked, not spinning: the CPU-bound case is the timeout test's).
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => pool.run({ do: 'block' })));
    const reasons = outcomes.map((o) => (o.ok ? 'ok' : o.reason));
    // Two threads and two waiting places at most: the others are refused without waiting.
    assert.ok(reasons.filter((r) => r === 'busy').length >= 2, String(reasons));
    assert.ok(
      reasons.every((r) => r === 'busy' || r === 'timeout'),
      String(reasons),
    );
    assert.ok(pool.stats.threads <= 2);
  });

  it('after close, jobs are refused', async () => {
    await pool.close();
    assert.deepEqual(await pool.run({ do: 'echo' }), { ok: false, reason: 'closed' });
  });
});
