import type { Db } from './db/index.js';
import { pruneDeliveries } from './modules/webhooks/webhooks.public.js';
import { IDEMPOTENCY_TTL_MS } from './plugins/idempotency.js';
import { deleteKeysBefore } from './plugins/idempotency.repository.js';
import type { WorkerLogger } from './shared/job-loop.js';
import { type Clock, ScheduledJob } from './shared/scheduled-job.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * The retention policy (docs/operations.md#retention), enforced by one job for the whole
 * service: at most hourly, whichever process takes its lease. The audit log and bookkeeping
 * documents are not touched here: they are kept for the legal period (10 years) at least.
 */
export const RETENTION = { everyMs: HOUR, leaseMs: 10 * MINUTE, checkMs: 5 * MINUTE };

export interface RetentionOptions {
  /** Finished webhook deliveries (the delivery log) are kept this many days. */
  webhookDeliveryRetentionDays?: number;
  clock?: Clock;
}

export function retentionJob(db: Db, logger: WorkerLogger, options: RetentionOptions = {}): ScheduledJob {
  const deliveryDays = options.webhookDeliveryRetentionDays ?? 30;
  return new ScheduledJob(db, {
    name: 'retention',
    ...RETENTION,
    logger,
    ...(options.clock ? { clock: options.clock } : {}),
    async run(now) {
      const before = (ms: number) => new Date(now.getTime() - ms).toISOString();
      await deleteKeysBefore(db, before(IDEMPOTENCY_TTL_MS));
      const deliveries = await pruneDeliveries(db, before(deliveryDays * DAY));
      logger.info({ deliveries }, 'retention: pruned');
    },
  });
}
