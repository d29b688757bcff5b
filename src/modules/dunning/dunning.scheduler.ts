import { randomUUID } from 'node:crypto';
import type { MailConfig } from '../../config.js';
import type { Db } from '../../db/index.js';
import { JobLoop, silentLogger, type WorkerLogger } from '../../shared/job-loop.js';
import { keepLease } from '../../shared/scheduled-job.js';
import { accountsWithoutJob } from './dunning.read-model.js';
import * as repo from './dunning.repository.js';
import { runDunning } from './dunning.service.js';

/** The time as the scheduler sees it: injectable, so tests choose the day. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export interface DunningSchedulerOptions {
  clock?: Clock;
  /** How often an idle scheduler looks for an account whose day has not run. */
  pollIntervalMs?: number;
  /** How long a claim holds without renewal; renewed every third of it while the run works. */
  leaseMs?: number;
  logger?: WorkerLogger;
  /** The relay: letters of levels delivered by e-mail are queued with the run (none: not). */
  mail?: MailConfig | null;
}

/**
 * The daily dunning run (DUNNING_AUTO_RUN): for each account, once a day (UTC), the run of
 * POST /dunning/run. A durable job per account (`dunning_jobs`) names the last day that ran
 * and the lease of the worker running it now, so several processes share the work and a day
 * a dead worker left is taken over when its lease runs out.
 *
 * Not a ScheduledJob (shared/scheduled-job.ts, the retention job): that is one job for the whole
 * service, due a fixed time after its last run ended, in one row of `scheduled_jobs`; this run
 * is due once a UTC day per account (a letter is dated the day it is made, so drifting past
 * midnight would skip a day), shares the accounts between processes and keeps each account's
 * last error. Both keep their schedule and lease in the database, renew the lease while a long
 * run works (`keepLease`) and take an injectable clock.
 */
export class DunningScheduler {
  private readonly loop: JobLoop;
  private readonly clock: Clock;
  private readonly leaseMs: number;
  private readonly logger: WorkerLogger;
  private busy = false;
  private readonly mail: MailConfig | null;

  constructor(
    private readonly db: Db,
    opts: DunningSchedulerOptions = {},
  ) {
    this.clock = opts.clock ?? systemClock;
    this.leaseMs = opts.leaseMs ?? 10 * 60_000;
    this.logger = opts.logger ?? silentLogger;
    this.mail = opts.mail ?? null;
    this.loop = new JobLoop({
      label: 'dunning',
      pollIntervalMs: opts.pollIntervalMs ?? 60_000,
      logger: this.logger,
      hasRoom: () => !this.busy,
      round: () => this.round().then(() => undefined),
    });
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Runs every account whose day is due; answers how many runs it made. */
  async round(): Promise<number> {
    this.busy = true;
    try {
      await repo.insertJobs(this.db, await accountsWithoutJob(this.db));
      let runs = 0;
      for (;;) {
        const ran = await this.runOne();
        if (ran === undefined) return runs;
        if (ran) runs++;
      }
    } finally {
      this.busy = false;
    }
  }

  /** Claims and runs one due account: true when it ran, false when another worker took it. */
  private async runOne(): Promise<boolean | undefined> {
    const now = this.clock.now();
    const today = new Date(now).toISOString().slice(0, 10);
    const token = randomUUID();
    const leaseUntil = (ms: number) => new Date(ms + this.leaseMs).toISOString();
    const accountId = await repo.claimJob(
      this.db,
      today,
      new Date(now).toISOString(),
      leaseUntil(now),
      token,
    );
    if (accountId === undefined) return undefined;
    if (accountId === -1) return false;
    // A long run keeps its claim. A lost one is harmless: the run makes each letter once, and
    // ending the job checks that the claim is still this run's.
    const lease = keepLease({
      leaseMs: this.leaseMs,
      until: now + this.leaseMs,
      now: () => this.clock.now(),
      renew: (until) => repo.renewJob(this.db, accountId, token, until.toISOString()),
      onError: (err) => this.logger.warn({ err, accountId }, 'dunning: renewing the lease failed'),
    });
    try {
      const result = await runDunning(this.db, accountId, { date: today, dryRun: false, mail: this.mail });
      await repo.endJob(
        this.db,
        accountId,
        token,
        { ranOn: today },
        new Date(this.clock.now()).toISOString(),
      );
      if (result.created.length || result.settled)
        this.logger.info(
          { accountId, date: today, created: result.created.length, settled: result.settled },
          'dunning: run',
        );
      return true;
    } catch (err) {
      this.logger.error({ err, accountId }, 'dunning: run failed');
      await repo.endJob(
        this.db,
        accountId,
        token,
        // Not again in this round: the claim stays until then.
        { error: err instanceof Error ? err.message : String(err), retryAt: leaseUntil(this.clock.now()) },
        new Date(this.clock.now()).toISOString(),
      );
      return false;
    } finally {
      lease.end();
    }
  }
}
