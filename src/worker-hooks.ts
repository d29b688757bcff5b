import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import type { Db, DbKind } from './db/index.js';
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

/**
 * Background work the API process runs beside serving requests: the webhook delivery worker,
 * unless `RUN_WORKER=false` (then `npm run worker` runs it in a process of its own). In two
 * steps: the wake-up hook goes in before the server listens (Fastify takes no hooks after),
 * the worker starts once it listens (a start that fails has sent nothing).
 */
export function prepareBackgroundWork(app: FastifyInstance): { start(): BackgroundWork } {
  if (!app.config.runWorker) return { start: () => ({ stop: async () => {} }) };
  afterWrites(app, wakeWebhookWorkers);
  return {
    start() {
      const worker = webhookWorkerFor(
        app.db,
        app.dbKind,
        app.config,
        app.log.child({ component: 'webhooks' }),
      );
      worker.start();
      app.log.info('webhook delivery worker started');
      return { stop: () => worker.stop() };
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
