import { randomUUID } from 'node:crypto';
import type { Db } from '../db/index.js';
import type { WorkerLogger } from './job-loop.js';

interface ScheduledJobsTable {
  name: string;
  lease_holder: string | null;
  lease_until: string | null;
  last_run_at: string | null;
}

declare module '../db/schema.js' {
  interface Database {
    scheduled_jobs: ScheduledJobsTable;
  }
}

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export interface ScheduledJobOptions {
  /** The job's row in `scheduled_jobs`. */
  name: string;
  /** A run is due this long after the last one finished. */
  everyMs: number;
  /** How long a run may take before another process may take the job over. */
  leaseMs: number;
  /** How often a process looks whether the job is due. */
  checkMs: number;
  run(now: Date): Promise<void>;
  logger: WorkerLogger;
  clock?: Clock;
}

/**
 * A job that runs on a schedule once for the whole service, not once per process: every
 * process that runs it looks now and then, and the one that takes the lease (one conditional
 * UPDATE: due, and no live lease) runs it. A process that dies mid-run holds the lease until it
 * runs out; then another one runs the job. A process restarted often still gets its turn: the
 * schedule is in the database, not in a timer.
 */
export class ScheduledJob {
  readonly #holder = randomUUID();
  readonly #clock: Clock;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<boolean> | undefined;

  constructor(
    private readonly db: Db,
    private readonly opts: ScheduledJobOptions,
  ) {
    this.#clock = opts.clock ?? systemClock;
  }

  start(): void {
    if (this.#timer) return;
    void this.tick();
    this.#timer = setInterval(() => void this.tick(), this.opts.checkMs).unref();
  }

  /** Stops looking; waits for a run in progress. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /** Runs the job if it is due and this process gets the lease; true when it ran. */
  tick(): Promise<boolean> {
    this.#running ??= this.#tryRun().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #tryRun(): Promise<boolean> {
    const { name, everyMs, leaseMs, logger } = this.opts;
    try {
      const now = this.#clock.now();
      await this.db
        .insertInto('scheduled_jobs')
        .values({ name, lease_holder: null, lease_until: null, last_run_at: null })
        .onConflict((oc) => oc.column('name').doNothing())
        .execute();
      const iso = now.toISOString();
      const taken = await this.db
        .updateTable('scheduled_jobs')
        .set({ lease_holder: this.#holder, lease_until: new Date(now.getTime() + leaseMs).toISOString() })
        .where('name', '=', name)
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', iso)]))
        .where((eb) =>
          eb.or([
            eb('last_run_at', 'is', null),
            eb('last_run_at', '<=', new Date(now.getTime() - everyMs).toISOString()),
          ]),
        )
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) !== 1) return false;
      await this.opts.run(now);
      await this.db
        .updateTable('scheduled_jobs')
        .set({ lease_holder: null, lease_until: null, last_run_at: this.#clock.now().toISOString() })
        .where('name', '=', name)
        .where('lease_holder', '=', this.#holder)
        .execute();
      return true;
    } catch (err) {
      // The database away, or the run failed: the lease runs out and a later look tries again.
      logger.error({ err }, `${name}: scheduled run failed`);
      return false;
    }
  }
}
