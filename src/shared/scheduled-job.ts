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

/** A lease a run holds while it works (`keepLease`). */
export interface Lease {
  /** Aborted once the lease is lost: the run stops and commits nothing more. */
  readonly signal: AbortSignal;
  /** Whether the lease is still this run's (and has not run out by the clock); a run asks before each piece of work. */
  held(): boolean;
}

export interface LeaseRenewal {
  /** How long the lease holds from a renewal. */
  leaseMs: number;
  /** When the lease taken runs out (ms, on the clock of `now`). */
  until: number;
  /** How often it is renewed (real time); default a third of `leaseMs`, so one failed renewal does not lose it. */
  renewEveryMs?: number;
  /** The clock the lease is measured on (ms). */
  now(): number;
  /** Extends the lease to `until`; false when it is no longer this holder's. */
  renew(until: Date): Promise<boolean>;
  /** A renewal that failed (the database away): the lease holds until it runs out. */
  onError(err: unknown): void;
}

/**
 * Renews a lease while a long run works. The lease is lost when a renewal finds another holder
 * or when the clock passes its end before a renewal got through (another process may take the
 * job then); the run sees it in `held()` and `signal`. `end()` stops renewing.
 */
export function keepLease(o: LeaseRenewal): Lease & { end(): void } {
  const lost = new AbortController();
  let until = o.until;
  let renewing = false;
  const lose = () => {
    clearInterval(timer);
    if (!lost.signal.aborted) lost.abort(new Error('the lease was lost'));
  };
  const held = () => {
    if (!lost.signal.aborted && o.now() >= until) lose();
    return !lost.signal.aborted;
  };
  const timer = setInterval(
    () => {
      if (renewing || !held()) return;
      renewing = true;
      const next = o.now() + o.leaseMs;
      o.renew(new Date(next))
        .then((ours) => {
          if (ours) until = next;
          else lose();
        }, o.onError)
        .finally(() => {
          renewing = false;
        });
    },
    o.renewEveryMs ?? Math.max(10, Math.floor(o.leaseMs / 3)),
  ).unref();
  return { signal: lost.signal, held, end: () => clearInterval(timer) };
}

export interface ScheduledJobOptions {
  /** The job's row in `scheduled_jobs`. */
  name: string;
  /** A run is due this long after the last one finished. */
  everyMs: number;
  /** How long the lease holds unrenewed: a process that died mid-run keeps the job this long. */
  leaseMs: number;
  /** How often a run renews its lease (real time); default a third of `leaseMs`. */
  renewEveryMs?: number;
  /** How often a process looks whether the job is due. */
  checkMs: number;
  /**
   * The work. Its lease is renewed while it works; once `lease.held()` is false (another
   * process has or may have the job) it stops and commits nothing more.
   */
  run(now: Date, lease: Lease): Promise<void>;
  logger: WorkerLogger;
  clock?: Clock;
}

/**
 * A job that runs on a schedule once for the whole service, not once per process: every
 * process that runs it looks now and then, and the one that takes the lease (one conditional
 * UPDATE: due, and no live lease) runs it. A process that dies mid-run holds the lease until it
 * runs out; then another one runs the job. A live run renews its lease, so a run may outlast
 * `leaseMs`; a run whose lease is lost stops and is not recorded as run. A process restarted
 * often still gets its turn: the schedule is in the database, not in a timer.
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
      const lease = keepLease({
        leaseMs,
        until: now.getTime() + leaseMs,
        renewEveryMs: this.opts.renewEveryMs,
        now: () => this.#clock.now().getTime(),
        renew: (until) => this.#renew(until),
        onError: (err) => logger.warn({ err }, `${name}: renewing the lease failed`),
      });
      try {
        await this.opts.run(now, lease);
      } catch (err) {
        if (lease.held()) throw err;
      } finally {
        lease.end();
      }
      if (!lease.held()) {
        logger.warn({ job: name }, `${name}: the lease was lost; the run stopped`);
        return false;
      }
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

  /** Extends this holder's lease; false when another holder has it. */
  async #renew(until: Date): Promise<boolean> {
    const r = await this.db
      .updateTable('scheduled_jobs')
      .set({ lease_until: until.toISOString() })
      .where('name', '=', this.opts.name)
      .where('lease_holder', '=', this.#holder)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }
}
