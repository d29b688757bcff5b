import type { Db } from '../../db/index.js';
import type { WorkerLogger } from '../../shared/job-loop.js';
import { type Clock, type Lease, ScheduledJob } from '../../shared/scheduled-job.js';
import * as runs from './plans.repository.js';
import { generateDue, type QueueInvoice, sendPending } from './plans.service.js';

const MINUTE = 60_000;

/**
 * How often the plans run: every 15 minutes whichever process takes the lease, so a period's
 * invoice is made and sent within a quarter of an hour after midnight UTC of its date. A run
 * that outlasts its lease is harmless: the database makes each period and each send once.
 */
export const RECURRING_PLANS = { everyMs: 15 * MINUTE, leaseMs: 10 * MINUTE, checkMs: MINUTE };

export interface RecurringPlansOptions {
  /** Queues a booked invoice in the mail outbox; null: no relay, invoices are booked, not sent. */
  queue: QueueInvoice | null;
  /** After a run that queued messages (wakes the mail worker). */
  onQueued?: () => void;
  logger: WorkerLogger;
  clock?: Clock;
}

export interface PlansRun {
  /** Periods dealt with (invoices made, or found made by POST …/generate). */
  periods: number;
  /** Invoices booked and queued for sending. */
  queued: number;
  /** Periods whose step failed unexpectedly; left as they were, for the next run. */
  errors: number;
}

/**
 * One run over every plan with `auto_generate`: makes the invoice of each period due by
 * `today` (UTC), every missed one too, then books and queues every period pending to send.
 * A failure stops only its period, which the next run takes up again. A run whose `lease` is
 * lost stops before the next plan or send: the process that has the job now does the rest.
 */
export async function runRecurringPlans(
  db: Db,
  today: string,
  opts: Omit<RecurringPlansOptions, 'clock'>,
  lease: Pick<Lease, 'held'> = { held: () => true },
): Promise<PlansRun> {
  const result: PlansRun = { periods: 0, queued: 0, errors: 0 };
  for (const master of await runs.autoMasters(db)) {
    if (!lease.held()) break;
    try {
      result.periods += await generateDue(db, master, today);
    } catch (err) {
      result.errors++;
      opts.logger.error({ err, masterId: master.id }, 'recurring plans: making an invoice failed');
    }
  }
  sending: for (let after = 0; ; ) {
    const pending = await runs.pendingRuns(db, after, 100);
    if (pending.length === 0) break;
    for (const run of pending) {
      if (!lease.held()) break sending;
      after = run.id;
      try {
        const state = await sendPending(db, run, opts.queue);
        if (state === 'queued') result.queued++;
        else if (state && state !== 'generated')
          opts.logger.warn(
            { masterId: run.master_id, period: run.period_start, state },
            'recurring plans: not sent',
          );
      } catch (err) {
        result.errors++;
        opts.logger.error(
          { err, masterId: run.master_id, period: run.period_start },
          'recurring plans: sending failed',
        );
      }
    }
  }
  if (result.queued > 0) opts.onQueued?.();
  if (result.periods || result.queued || result.errors) opts.logger.info(result, 'recurring plans: run');
  return result;
}

/**
 * The scheduler of recurring plans (RECURRING_AUTO_RUN): a durable job with a lease in the
 * database (`scheduled_jobs`), run once for the whole service whichever processes run it.
 */
export function recurringPlansJob(db: Db, opts: RecurringPlansOptions): ScheduledJob {
  return new ScheduledJob(db, {
    name: 'recurring-plans',
    ...RECURRING_PLANS,
    logger: opts.logger,
    ...(opts.clock ? { clock: opts.clock } : {}),
    async run(now, lease) {
      await runRecurringPlans(db, now.toISOString().slice(0, 10), opts, lease);
    },
  });
}
