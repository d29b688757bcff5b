import type { Db } from './db/index.js';
import { pruneFeed } from './modules/changes/changes.public.js';
import { pruneDeliveries, pruneEvents } from './modules/webhooks/webhooks.public.js';
import { IDEMPOTENCY_TTL_MS } from './plugins/idempotency.js';
import { deleteKeysBefore } from './plugins/idempotency.repository.js';
import type { WorkerLogger } from './shared/job-loop.js';
import { type Clock, ScheduledJob } from './shared/scheduled-job.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The change feed's window by default (CHANGE_FEED_RETENTION_DAYS). */
export const CHANGE_FEED_RETENTION_DAYS = 90;

/**
 * The retention policy (docs/operations.md#retention), enforced by one job for the whole
 * service: at most hourly, whichever process takes its lease. The audit log and bookkeeping
 * documents are not touched here: they are kept for the legal period (10 years) at least.
 */
export const RETENTION = { everyMs: HOUR, leaseMs: 10 * MINUTE, checkMs: 5 * MINUTE };

export interface RetentionOptions {
  /** Finished webhook deliveries (the delivery log) are kept this many days. */
  webhookDeliveryRetentionDays?: number;
  /** Change-feed entries and events are kept this many days (the feed's window). */
  changeFeedRetentionDays?: number;
  clock?: Clock;
}

export function retentionJob(db: Db, logger: WorkerLogger, options: RetentionOptions = {}): ScheduledJob {
  const deliveryDays = options.webhookDeliveryRetentionDays ?? 30;
  const feedDays = options.changeFeedRetentionDays ?? CHANGE_FEED_RETENTION_DAYS;
  return new ScheduledJob(db, {
    name: 'retention',
    ...RETENTION,
    logger,
    ...(options.clock ? { clock: options.clock } : {}),
    async run(now, lease) {
      const before = (ms: number) => new Date(now.getTime() - ms).toISOString();
      const steps: [table: string, prune: () => Promise<number>][] = [
        [
          'idempotency_keys',
          async () =>
            Number((await deleteKeysBefore(db, before(IDEMPOTENCY_TTL_MS)))[0]?.numDeletedRows ?? 0),
        ],
        ['webhook_deliveries', () => pruneDeliveries(db, before(deliveryDays * DAY))],
        ['change_log', () => pruneFeed(db, before(feedDays * DAY), now.toISOString())],
        // After the deliveries: an event goes once no delivery names it.
        ['events', () => pruneEvents(db, before(feedDays * DAY))],
      ];
      const pruned: Record<string, number> = {};
      for (const [table, prune] of steps) {
        // Lost: another process has (or may take) the job and prunes the rest; not both.
        if (!lease.held()) return;
        pruned[table] = await prune();
        logger.info({ table, deleted: pruned[table] }, 'retention: step');
      }
      logger.info(pruned, 'retention: pruned');
    },
  });
}
