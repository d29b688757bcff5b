/**
 * The polling loop of a background worker that claims work from the database (extraction jobs,
 * webhook deliveries). The worker keeps what it claims and runs; the loop keeps the rhythm:
 * a round while there is room, the poll interval between rounds unless woken, a back-off while
 * rounds fail, and housekeeping (pruning old rows) now and then.
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
