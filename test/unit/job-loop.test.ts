import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { JobLoop, type WorkerLogger } from '../../src/shared/job-loop.js';

function recorder() {
  const lines: string[] = [];
  const logger: WorkerLogger = {
    info: (_o, m) => lines.push(`info ${m}`),
    warn: (_o, m) => lines.push(`warn ${m}`),
    error: (_o, m) => lines.push(`error ${m}`),
  };
  return { lines, logger };
}

describe('job loop', () => {
  it('goes round at the poll interval, at once when woken, and stops', async () => {
    let rounds = 0;
    let housekeeping = 0;
    const { logger } = recorder();
    const loop = new JobLoop({
      label: 'test',
      pollIntervalMs: 10_000,
      logger,
      hasRoom: () => true,
      round: async () => {
        rounds++;
      },
      housekeeping: async () => {
        housekeeping++;
      },
    });
    loop.start();
    await delay(20);
    assert.equal(rounds, 1);
    loop.wake();
    await delay(20);
    assert.equal(rounds, 2);
    // Housekeeping ran after the first round only (at most every 10 minutes).
    assert.equal(housekeeping, 1);
    await loop.stop();
    assert.equal(loop.isRunning, false);
    loop.wake();
    await delay(20);
    assert.equal(rounds, 2);
  });

  it('runs no round without room', async () => {
    let rounds = 0;
    const loop = new JobLoop({
      label: 'test',
      pollIntervalMs: 1,
      logger: recorder().logger,
      hasRoom: () => false,
      round: async () => {
        rounds++;
      },
    });
    loop.start();
    await delay(20);
    await loop.stop();
    assert.equal(rounds, 0);
  });

  it('backs off while rounds fail, logs the 1st, 2nd, 4th failure, and says when it works again', async () => {
    let calls = 0;
    const { lines, logger } = recorder();
    const loop = new JobLoop({
      label: 'test',
      pollIntervalMs: 1,
      logger,
      hasRoom: () => true,
      round: async () => {
        calls++;
        if (calls <= 5) throw new Error('database away');
      },
    });
    loop.start();
    // 1 + 2 + 4 + 8 + 16 + 32 ms of back-off before the 6th round succeeds.
    await delay(250);
    await loop.stop();
    assert.ok(calls >= 6);
    assert.deepEqual(lines.slice(0, 4), [
      'error test: claiming failed',
      'error test: claiming failed',
      'error test: claiming failed',
      'info test: claiming works again',
    ]);
  });
});
