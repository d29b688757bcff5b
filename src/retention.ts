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
    async run(now) {
      const before = (ms: number) => new Date(now.getTime() - ms).toISOString();
      await deleteKeysBefore(db, before(IDEMPOTENCY_TTL_MS));
      const deliveries = await pruneDeliveries(db, before(deliveryDays * DAY));
      // Deliveries first: an event goes once no delivery names it.
      const changes = await pruneFeed(db, before(feedDays * DAY), now.toISOString());
      const events = await pruneEvents(db, before(feedDays * DAY));
      logger.info({ deliveries, changes, events }, 'retention: pruned');
    },
  });
}
