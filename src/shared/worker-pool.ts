import { type ChildProcess, fork } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parentPort, type ResourceLimits, type Transferable, Worker } from 'node:worker_threads';
import { holdsThreads } from './stop.js';

/**
 * A small pool of worker threads for CPU-heavy work on untrusted input (parsing uploaded
 * documents), so that the event loop keeps serving while a hostile file is being read.
 * Every job is bounded: wall time (the thread is terminated and replaced), memory
 * (`resourceLimits`: V8 ends the thread when its heap is full), and the queue (a full one
 * answers `busy` at once instead of building a backlog). Nothing in here knows what a job
 * is: a module that calls `serveJobs` answers one message per job.
 */
export interface WorkerPoolOptions {
  /** The module each thread runs; it calls `serveJobs`. A `.ts` entry is loaded through tsx. */
  entry: URL;
  /** Threads at most; they start on demand and stay for the next job. */
  size: number;
  /** Jobs that may wait for a thread; one more is refused as `busy`. */
  maxQueue: number;
  /** Wall time of one job, from when a started thread takes it. */
  timeoutMs: number;
  /** A thread idle this long ends (it holds its modules' memory); the next job starts one. */
  idleMs?: number;
  resourceLimits?: ResourceLimits;
  /**
   * Child processes instead of threads: for jobs that use native addons which may crash the
   * whole process (@napi-rs/canvas segfaults when a thread that used it ends). A crash then
   * ends the child and fails the job as `crashed`; the memory limit is the child's heap.
   */
  processes?: boolean;
  /**
   * Nice value of a child process, all its threads included (started through `nice`, where
   * there is one): a thread can only lower its own priority, not the helper threads V8 started
   * before it.
   */
  nice?: number;
}

/** What the pool needs of a thread or a child process. */
interface Runner extends EventEmitter {
  postMessage(value: unknown, transfer?: readonly Transferable[]): void;
  terminate(): Promise<unknown>;
  ref(): void;
  unref(): void;
}

const NICE = '/usr/bin/nice';

/** A child process (fork, IPC with structured clone) that looks like a Worker to the pool. */
class ChildRunner extends EventEmitter implements Runner {
  readonly #child: ChildProcess;
  constructor(entry: URL, limits: ResourceLimits | undefined, nice?: number) {
    super();
    const heap = limits?.maxOldGenerationSizeMb;
    const niced = nice !== undefined && existsSync(NICE);
    this.#child = fork(fileURLToPath(entry), [], {
      ...(niced ? { execPath: NICE } : {}),
      execArgv: [
        ...(niced ? ['-n', String(nice), process.execPath] : []),
        ...(entry.pathname.endsWith('.ts') ? ['--import', 'tsx'] : []),
        ...(heap ? [`--max-old-space-size=${heap}`] : []),
      ],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, WORKER_POOL_CHILD: '1' },
    });
    this.#child.on('message', (m) => this.emit('message', m));
    this.#child.on('error', (err) => this.emit('error', err));
    this.#child.on('exit', (code, signal) => {
      // A heap that outgrew --max-old-space-size ends the child with V8's abort.
      if (signal === 'SIGABRT' || code === 134)
        this.emit('error', Object.assign(new Error('out of memory'), { code: 'ERR_WORKER_OUT_OF_MEMORY' }));
      this.emit('exit', code);
    });
  }
  postMessage(value: unknown): void {
    this.#child.send(value as never);
  }
  terminate(): Promise<unknown> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return Promise.resolve();
    const gone = new Promise((r) => this.#child.once('exit', r));
    // Awaited: the child must keep the loop alive until it is gone.
    this.#child.ref();
    this.#child.kill('SIGKILL');
    return gone;
  }
  ref(): void {
    this.#child.ref();
    this.#child.channel?.ref();
  }
  unref(): void {
    this.#child.unref();
    this.#child.channel?.unref();
  }
}

export type JobFailure = 'busy' | 'timeout' | 'out_of_memory' | 'crashed' | 'closed';
export type JobOutcome<T> = { ok: true; value: T } | { ok: false; reason: JobFailure };

interface Job {
  input: unknown;
  transfer: Transferable[];
  settle: (outcome: JobOutcome<unknown>) => void;
}

interface Running {
  job: Job;
  timer: NodeJS.Timeout;
}

/** What a thread posts once its module is loaded: the time limit starts at the first job. */
const READY = '@worker-pool/ready';

// Threads start without the parent's loader hooks (node 20 does not pass `--import tsx`'s
// hooks on), so a TypeScript entry registers a loader itself before it is imported: the lean
// one of scripts/ts-loader.mjs (esbuild's transform, cached on disk), not tsx, whose hooks
// made each extraction thread about 90 MB larger (bench/memory.bench.ts, issue 44).
const TS_LOADER = new URL('../../scripts/ts-loader.mjs', import.meta.url).href;
const TS_BOOT = `
const { workerData } = require('node:worker_threads');
import(workerData.loader).then(() => import(workerData.entry));
`;

export class WorkerPool<In, Out> {
  readonly #options: WorkerPoolOptions;
  readonly #idle: Runner[] = [];
  /** Every live thread: its job, null when it has none, `starting` until it is ready. */
  readonly #running = new Map<Runner, Running | null | 'starting'>();
  readonly #idleTimers = new Map<Runner, NodeJS.Timeout>();
  readonly #queue: Job[] = [];
  #closed = false;
  /** A stop ends this pool's threads before the process exits, also when nobody closed it. */
  readonly #unregister: () => void;

  constructor(options: WorkerPoolOptions) {
    this.#options = options;
    this.#unregister = holdsThreads(this);
  }

  /** Runs one job; never rejects: a job that could not finish says why. */
  run(input: In, transfer: Transferable[] = []): Promise<JobOutcome<Out>> {
    if (this.#closed) return Promise.resolve({ ok: false, reason: 'closed' });
    if (this.#queue.length >= this.#options.maxQueue) return Promise.resolve({ ok: false, reason: 'busy' });
    return new Promise((settle) => {
      this.#queue.push({ input, transfer, settle: settle as Job['settle'] });
      this.#pump();
    });
  }

  /** Jobs waiting and threads alive, for logs and tests. */
  get stats() {
    return { queued: this.#queue.length, threads: this.#running.size };
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.splice(0)) job.settle({ ok: false, reason: 'closed' });
    const threads = [...this.#running.keys()];
    this.#idle.length = 0;
    await Promise.all(threads.map((w) => w.terminate()));
    this.#unregister();
  }

  #pump() {
    while (this.#queue.length > 0 && !this.#closed) {
      const worker = this.#idle.pop();
      if (worker) {
        this.#start(worker, this.#queue.shift()!);
        continue;
      }
      // No ready thread: start one per waiting job, up to `size`; each takes a job once ready.
      const starting = [...this.#running.values()].filter((r) => r === 'starting').length;
      if (this.#queue.length <= starting || this.#running.size >= this.#options.size) return;
      this.#spawn();
    }
  }

  #start(worker: Runner, job: Job) {
    clearTimeout(this.#idleTimers.get(worker));
    const timer = setTimeout(() => this.#fail(worker, 'timeout'), this.#options.timeoutMs);
    this.#running.set(worker, { job, timer });
    // A child's channel keeps the process alive only while it has a job (a thread's port does).
    if (this.#options.processes) worker.ref();
    worker.postMessage(job.input, job.transfer);
  }

  #spawn(): Runner {
    const { entry, resourceLimits } = this.#options;
    const worker: Runner = this.#options.processes
      ? new ChildRunner(entry, resourceLimits, this.#options.nice)
      : entry.pathname.endsWith('.ts')
        ? new Worker(TS_BOOT, {
            eval: true,
            resourceLimits,
            workerData: { loader: TS_LOADER, entry: entry.href },
          })
        : new Worker(entry, { resourceLimits });
    // An idle thread must not keep the process alive; a running job is awaited by its caller.
    // (A starting child is kept referenced: a job is waiting for it.)
    if (!this.#options.processes) worker.unref();
    this.#running.set(worker, 'starting');
    worker.on('message', (value: unknown) => {
      const current = this.#running.get(worker);
      if (current === 'starting' && value === READY) {
        this.#running.set(worker, null);
      } else if (current && current !== 'starting') {
        clearTimeout(current.timer);
        this.#running.set(worker, null);
        current.job.settle({ ok: true, value });
      } else return;
      if (this.#options.processes) worker.unref();
      this.#idle.push(worker);
      this.#idleTimers.set(
        worker,
        setTimeout(() => this.#retire(worker), this.#options.idleMs ?? 60_000).unref(),
      );
      this.#pump();
    });
    worker.on('error', (err: NodeJS.ErrnoException) =>
      this.#fail(worker, err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'out_of_memory' : 'crashed'),
    );
    worker.on('exit', () => {
      // A thread that dies before it is ready (a broken install) fails a waiting job instead
      // of being replaced for ever.
      if (this.#running.get(worker) === 'starting')
        this.#queue.shift()?.settle({ ok: false, reason: 'crashed' });
      clearTimeout(this.#idleTimers.get(worker));
      this.#idleTimers.delete(worker);
      this.#fail(worker, 'crashed');
      // Counted until it is really gone, so that a terminated thread's memory and a new
      // one's never add up beyond `size` threads.
      this.#running.delete(worker);
      this.#pump();
    });
    return worker;
  }

  #retire(worker: Runner) {
    const idleAt = this.#idle.indexOf(worker);
    if (idleAt < 0) return;
    this.#idle.splice(idleAt, 1);
    void worker.terminate();
  }

  /** Ends the thread's job (if any) with `reason` and ends the thread; a new one replaces it. */
  #fail(worker: Runner, reason: JobFailure) {
    const current = this.#running.get(worker);
    const idleAt = this.#idle.indexOf(worker);
    if (idleAt >= 0) this.#idle.splice(idleAt, 1);
    if (current && current !== 'starting') {
      clearTimeout(current.timer);
      this.#running.set(worker, null);
      current.job.settle({ ok: false, reason });
      void worker.terminate();
    }
  }
}

/** The thread side: answers every job message with `handle`'s result. */
export function serveJobs<In, Out>(handle: (input: In) => Promise<Out>): void {
  if (!parentPort && process.send && process.env.WORKER_POOL_CHILD) {
    const send = process.send.bind(process);
    process.on('message', async (input: In) => send(await handle(input)));
    // The pool's process is gone: nobody will send another job.
    process.on('disconnect', () => process.exit(0));
    send(READY);
    return;
  }
  if (!parentPort) throw new Error('serveJobs runs inside a worker thread or a pool child process');
  const port = parentPort;
  port.on('message', async (input: In) => port.postMessage(await handle(input)));
  port.postMessage(READY);
}
