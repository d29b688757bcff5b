// A worker for test/unit/worker-pool.test.ts: each job names what the thread does.
import { serveJobs } from '../../src/shared/worker-pool.js';

const hoard: unknown[] = [];

serveJobs(async (job: { do: 'echo' | 'spin' | 'block' | 'hoard' | 'throw'; value?: number }) => {
  if (job.do === 'spin') for (;;);
  // Never returns either, without burning a core while it waits to be ended.
  if (job.do === 'block') Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  if (job.do === 'hoard') for (;;) hoard.push(new Array(100_000).fill({ job }));
  if (job.do === 'throw') throw new Error('broken');
  return { echo: job.value, thread: (await import('node:worker_threads')).threadId };
});
