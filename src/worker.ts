import pino from 'pino';
import { loadConfig } from './config.js';
import { createDatabaseIfMissing } from './db/create-database.js';
import { createDb } from './db/index.js';
import { migrateToLatest } from './db/migrator.js';
import { mailboxWorkerFor } from './modules/incoming-mailboxes/incoming-mailboxes.public.js';
import { retentionJob } from './retention.js';
import { boundStop, exitAfterThreads, exitReserveMs } from './shared/stop.js';
import { failStartup, startupStep } from './startup.js';
import {
  dunningSchedulerFor,
  extractionWorkerFor,
  mailWorkerFor,
  recurringPlansFor,
  webhookWorkerFor,
} from './worker-hooks.js';

/**
 * `npm run worker`: the webhook delivery worker, the extraction job worker (OCR), the mail
 * outbox's worker and the retention job alone, for deployments that run the API with
 * RUN_WORKER=false. Any number of these may share one PostgreSQL database.
 */
try {
  const config = loadConfig();
  const log = pino({ level: config.logLevel, name: 'webhook-worker' });
  for (const warning of config.warnings) log.warn(warning);
  const created = await startupStep('opening the database', () => createDatabaseIfMissing(config.db));
  if (created) log.info(created);
  const handle = await startupStep('opening the database', () => createDb(config.db));
  await startupStep('migrating the database', () => migrateToLatest(handle.db));
  const worker = webhookWorkerFor(handle.db, handle.kind, config, log);
  worker.start();
  log.info({ db: handle.kind }, 'webhook delivery worker started');
  const extraction = extractionWorkerFor(
    handle.db,
    handle.kind,
    config,
    log.child({ component: 'extraction-jobs' }),
  );
  extraction.start();
  const mailboxes = mailboxWorkerFor(handle.db, handle.kind, config, log.child({ component: 'mailboxes' }));
  mailboxes.start();
  const mail = mailWorkerFor(handle.db, handle.kind, config, log.child({ component: 'mail' }));
  mail.start();
  const dunning = dunningSchedulerFor(handle.db, config, log.child({ component: 'dunning' }));
  dunning.start();
  const plans = recurringPlansFor(handle.db, config, log.child({ component: 'recurring-plans' }));
  plans.start();

  const retention = retentionJob(handle.db, log.child({ component: 'retention' }), {
    webhookDeliveryRetentionDays: config.webhookDeliveryRetentionDays,
    changeFeedRetentionDays: config.changeFeedRetentionDays,
  });
  retention.start();

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: finishing the attempts in flight');
    // Bounded like the server's stop (shared/stop.ts): the OCR children ended, then a hard exit.
    const limitMs = config.drainLimitMs;
    const threadsBoundMs = exitReserveMs(limitMs) / 2;
    boundStop(limitMs, () =>
      log.error(`still busy after ${(limitMs - exitReserveMs(limitMs)) / 1000} s; exiting anyway`),
    );
    Promise.all([
      worker.stop(),
      extraction.stop(),
      mail.stop(),
      mailboxes.stop(),
      dunning.stop(),
      plans.stop(),
      retention.stop(),
    ])
      .finally(() => handle.destroy())
      .then(
        () => exitAfterThreads(0, threadsBoundMs),
        (err: unknown) => {
          log.error({ err }, 'shutdown failed');
          return exitAfterThreads(1, threadsBoundMs);
        },
      );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
} catch (err) {
  failStartup(err);
}
