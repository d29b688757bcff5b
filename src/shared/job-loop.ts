/**
 * The polling loop of a background worker that claims work from the database (extraction jobs,
 * webhook deliveries). The worker keeps what it claims and runs; the loop keeps the rhythm:
 * a round while there is room, the poll interval between rounds unless woken, a back-off while
 * rounds fail, and housekeeping (pruning old rows) now and then. LeasedWorker (below) is the
 * shell the mail, webhook and mailbox workers share around it.
 */

export interface WorkerLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export const silentLogger: WorkerLogger = { info() {}, warn() {}, error() {} };

/** The longest pause between rounds while they fail. */
export const MAX_FAILURE_BACKOFF_MS = 5000;

/** Housekeeping runs at most this often. */
export const HOUSEKEEPING_EVERY_MS = 10 * 60 * 1000;

export interface JobLoopOptions {
  /** Names the worker in log messages, e.g. "extraction jobs". */
  label: string;
  pollIntervalMs: number;
  logger: WorkerLogger;
  /** Whether a round may start now (a free slot). */
  hasRoom(): boolean;
  /** Claims what is due and starts it; throws when claiming fails (the database away). */
  round(): Promise<void>;
  /** Run after a round at most every HOUSEKEEPING_EVERY_MS; a failure counts as the round's. */
  housekeeping?(): Promise<void>;
}

export class JobLoop {
  private running = false;
  private done: Promise<void> = Promise.resolve();
  private woken = false;
  private wakeUp: (() => void) | undefined;
  /** Consecutive failed rounds: the loop backs off. */
  private failures = 0;
  private lastHousekeeping = 0;

  constructor(private readonly opts: JobLoopOptions) {}

  get isRunning(): boolean {
    return this.running;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.done = this.loop();
  }

  /** Ends the loop after its current round; resolves when it has ended. */
  stop(): Promise<void> {
    this.running = false;
    this.wake();
    return this.done;
  }

  /** Go round now rather than at the next poll (also: right after the current round). */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  private async loop(): Promise<void> {
    const { label, logger, pollIntervalMs } = this.opts;
    while (this.running) {
      if (this.opts.hasRoom()) {
        try {
          await this.opts.round();
          await this.maybeHousekeep();
          if (this.failures > 0) logger.info({ failures: this.failures }, `${label}: claiming works again`);
          this.failures = 0;
        } catch (err) {
          // The database is away (an outage, a lock held long): try again less and less often,
          // up to every 5 s, and log the first failure and then at doubling counts, not each poll.
          this.failures++;
          if ((this.failures & (this.failures - 1)) === 0)
            logger.error({ err, failures: this.failures }, `${label}: claiming failed`);
        }
      }
      if (!this.running) break;
      const backoff = pollIntervalMs * 2 ** Math.min(this.failures, 16);
      await this.sleep(this.failures > 0 ? Math.min(MAX_FAILURE_BACKOFF_MS, backoff) : pollIntervalMs);
    }
  }

  private async maybeHousekeep(): Promise<void> {
    if (!this.opts.housekeeping) return;
    const now = Date.now();
    if (now - this.lastHousekeeping < HOUSEKEEPING_EVERY_MS) return;
    this.lastHousekeeping = now;
    await this.opts.housekeeping();
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }
}

export interface LeasedWorkerOptions {
  /** Names the worker in log messages, e.g. "mail worker". */
  label: string;
  pollIntervalMs: number;
  /** Pieces of work in flight at once. */
  concurrency: number;
  logger: WorkerLogger;
  /**
   * The workers of this process that a write wakes (worker-hooks.ts): the worker is in it
   * while it runs.
   */
  local?: Set<{ wake(): void }>;
  /**
   * `idle`: ask whether anything is due (a read) before claiming (a write) only after a round
   * that found nothing; `always`: before every claim. Default `idle`.
   */
  lookFirst?: 'idle' | 'always';
  /**
   * Go round again at once when a piece finishes or a claim filled every free slot, rather
   * than at the next poll (queues whose next piece may be waiting). Default true.
   */
  eager?: boolean;
}

/**
 * The shell of a background worker that leases work from the database: a JobLoop that, while
 * a slot is free, asks whether anything is due, claims up to the free slots (leases, so any
 * number of workers in any number of processes may run), and runs each claimed piece beside
 * the others; stop ends the claiming and waits for what is in flight. The subclass says what
 * is due, how to claim, and how to run one piece (which never throws).
 */
export abstract class LeasedWorker<T> {
  protected readonly inFlight = new Set<Promise<void>>();
  protected readonly jobs: JobLoop;
  /** Set while stopping: a piece not yet begun lets its claim go rather than run. */
  protected stopping = false;
  private idle = false;

  constructor(private readonly shell: LeasedWorkerOptions) {
    this.jobs = new JobLoop({
      label: shell.label,
      pollIntervalMs: shell.pollIntervalMs,
      logger: shell.logger,
      hasRoom: () => this.inFlight.size < shell.concurrency,
      round: () => this.fill(shell.concurrency - this.inFlight.size),
    });
  }

  /** Whether anything is due at `nowIso` (a read, no lease taken). */
  protected abstract isDue(nowIso: string): Promise<boolean>;
  /** Leases up to `free` pieces of due work to this worker. */
  protected abstract claimFor(free: number): Promise<T[]>;
  /** Runs one claimed piece; never throws. */
  protected abstract runOne(piece: T): Promise<void>;
  /** After the pieces in flight have ended: close connections. */
  protected closed(): void {}

  start(): void {
    if (this.jobs.isRunning) return;
    this.stopping = false;
    this.shell.local?.add(this);
    this.jobs.start();
  }

  /** Stops claiming and waits for the pieces in flight. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.shell.local?.delete(this);
    await this.jobs.stop();
    for (const r of await Promise.allSettled([...this.inFlight]))
      if (r.status === 'rejected')
        this.shell.logger.error({ err: r.reason }, `${this.shell.label}: run failed`);
    this.closed();
  }

  /** Look for due work now rather than at the next poll. */
  wake(): void {
    this.jobs.wake();
  }

  private async fill(free: number): Promise<void> {
    const always = this.shell.lookFirst === 'always';
    if ((always || this.idle) && !(await this.isDue(new Date().toISOString()))) return;
    const pieces = await this.claimFor(free);
    this.idle = pieces.length === 0;
    const eager = this.shell.eager ?? true;
    for (const piece of pieces) {
      const p: Promise<void> = this.runOne(piece).finally(() => {
        this.inFlight.delete(p);
        // The next piece may be waiting for this slot.
        if (eager) this.wake();
      });
      this.inFlight.add(p);
    }
    // More may be due than there was room for: look again right away.
    if (eager && pieces.length === free) this.jobs.wake();
  }
}
