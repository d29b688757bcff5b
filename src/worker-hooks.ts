import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import type { Db, DbKind } from './db/index.js';
import { DunningScheduler } from './modules/dunning/dunning.public.js';
import { defaultSteps } from './modules/incoming-invoices/jobs/default-steps.js';
import {
  ExtractionWorker,
  wakeExtractionWorkers,
} from './modules/incoming-invoices/jobs/extraction-jobs.worker.js';
import { createOcrReader } from './modules/incoming-invoices/ocr/ocr.pool.js';
import { mailboxWorkerFor } from './modules/incoming-mailboxes/incoming-mailboxes.public.js';
import { MailWorker, sendInvoice, wakeMailWorkers } from './modules/mail/mail.public.js';
import { recurringPlansJob } from './modules/outgoing-invoices/outgoing-invoices.public.js';
import { WebhookWorker, type WorkerLogger, wakeWebhookWorkers } from './modules/webhooks/webhooks.worker.js';

export interface BackgroundWork {
  stop(): Promise<void>;
}

export function webhookWorkerFor(db: Db, kind: DbKind, config: Config, logger: WorkerLogger): WebhookWorker {
  return new WebhookWorker(db, kind, {
    secretKey: config.secretKey,
    allowPrivate: config.webhookAllowPrivate,
    pollIntervalMs: config.webhookPollMs,
    concurrency: config.webhookConcurrency,
    logger,
  });
}

/** The mail outbox's worker, when a relay is configured (SMTP_URL); else nothing is queued. */
export function mailWorkerFor(
  db: Db,
  kind: DbKind,
  config: Config,
  logger: WorkerLogger,
): BackgroundWork & { start(): void } {
  const worker = config.mail ? new MailWorker(db, kind, { mail: config.mail, logger }) : undefined;
  return { start: () => worker?.start(), stop: async () => worker?.stop() };
}

/** The daily dunning run, when DUNNING_AUTO_RUN is on; else nothing. */
export function dunningSchedulerFor(
  db: Db,
  config: Config,
  logger: WorkerLogger,
): BackgroundWork & { start(): void } {
  const scheduler = config.dunningAutoRun
    ? new DunningScheduler(db, { logger, mail: config.mail })
    : undefined;
  return { start: () => scheduler?.start(), stop: async () => scheduler?.stop() };
}

/**
 * The scheduler of recurring plans, unless RECURRING_AUTO_RUN=false: it makes the invoices of
 * plans with auto_generate and books and queues those with auto_send in the mail outbox
 * (without SMTP_URL they are booked, and the plan records why they were not sent).
 */
export function recurringPlansFor(
  db: Db,
  config: Config,
  logger: WorkerLogger,
): BackgroundWork & { start(): void } {
  const mail = config.mail;
  const job = config.recurringAutoRun
    ? recurringPlansJob(db, {
        queue: mail ? (trx, auth, id) => sendInvoice(trx, auth, id, {}, mail) : null,
        onQueued: wakeMailWorkers,
        logger,
      })
    : undefined;
  return { start: () => job?.start(), stop: async () => job?.stop() };
}

/**
 * The extraction job worker (OCR of scans) with its OCR threads: one job per thread at once.
 * Started with the webhook worker wherever that runs.
 */
export function extractionWorkerFor(
  db: Db,
  kind: DbKind,
  config: Config,
  logger: WorkerLogger,
): BackgroundWork & { start(): void; worker: ExtractionWorker } {
  const ocr = createOcrReader({
    threads: config.ocrThreads,
    timeoutMs: config.ocrTimeoutMs,
    memoryMb: config.extractionMemoryMb,
    maxPages: config.extractionMaxPages,
  });
  const worker = new ExtractionWorker(db, kind, {
    ocr,
    steps: defaultSteps,
    concurrency: config.ocrThreads,
    logger,
  });
  return {
    worker,
    start: () => worker.start(),
    // Stopping the worker also ends its OCR threads (ocr is the worker's).
    stop: () => worker.stop(),
  };
}

/**
 * Background work the API process runs beside serving requests: the webhook delivery worker,
 * unless `RUN_WORKER=false` (then `npm run worker` runs it in a process of its own). In two
 * steps: the wake-up hook goes in before the server listens (Fastify takes no hooks after),
 * the worker starts once it listens (a start that fails has sent nothing).
 */
export function prepareBackgroundWork(app: FastifyInstance): { start(): BackgroundWork } {
  if (!app.config.runWorker) return { start: () => ({ stop: async () => {} }) };
  afterWrites(app, wakeWebhookWorkers);
  afterWrites(app, wakeExtractionWorkers);
  afterWrites(app, wakeMailWorkers);
  return {
    start() {
      const extraction = extractionWorkerFor(
        app.db,
        app.dbKind,
        app.config,
        app.log.child({ component: 'extraction-jobs' }),
      );
      extraction.start();
      const mailboxes = mailboxWorkerFor(
        app.db,
        app.dbKind,
        app.config,
        app.log.child({ component: 'mailboxes' }),
      );
      mailboxes.start();
      const worker = webhookWorkerFor(
        app.db,
        app.dbKind,
        app.config,
        app.log.child({ component: 'webhooks' }),
      );
      worker.start();
      app.log.info('webhook delivery worker started');
      const mail = mailWorkerFor(app.db, app.dbKind, app.config, app.log.child({ component: 'mail' }));
      mail.start();
      const dunning = dunningSchedulerFor(app.db, app.config, app.log.child({ component: 'dunning' }));
      dunning.start();
      const plans = recurringPlansFor(app.db, app.config, app.log.child({ component: 'recurring-plans' }));
      plans.start();
      return {
        stop: async () =>
          void (await Promise.all([
            worker.stop(),
            extraction.stop(),
            mailboxes.stop(),
            mail.stop(),
            dunning.stop(),
            plans.stop(),
          ])),
      };
    },
  };
}

/** Both steps at once, for an app that is not listening yet (tests). */
export async function startBackgroundWork(app: FastifyInstance): Promise<BackgroundWork> {
  return prepareBackgroundWork(app).start();
}

/**
 * A write that succeeded has committed, and may have recorded events: `wake` delivers them now
 * instead of at the next poll. Events of processes that do not wake a worker arrive by polling.
 */
export function afterWrites(app: FastifyInstance, wake: () => void): void {
  app.addHook('onResponse', (req, reply, done) => {
    if (req.method !== 'GET' && req.method !== 'HEAD' && reply.statusCode < 400) wake();
    done();
  });
}
