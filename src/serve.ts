import cluster from 'node:cluster';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { announceReady, supervise, WAKE_WEBHOOKS } from './cluster.js';
import type { Config } from './config.js';
import { createDatabaseIfMissing } from './db/create-database.js';
import { createDb, type DbHandle } from './db/index.js';
import { migrateToLatest } from './db/migrator.js';
import { seedDemoIfEmpty } from './import/demo.js';
import { retentionJob } from './retention.js';
import { openConnections } from './shared/open-connections.js';
import { boundStop, exitAfterThreads, exitReserveMs } from './shared/stop.js';
import { describeListenError, StartupError, startupStep } from './startup.js';
import { afterWrites, type BackgroundWork, prepareBackgroundWork } from './worker-hooks.js';

const serverProcess = cluster.isWorker;

/**
 * The service as `npm start` runs it (see server.ts): one process, or a supervisor of
 * WORKERS server processes, or one of those.
 */
export async function run(config: Config): Promise<void> {
  if (serverProcess) return serve(config);
  // Migrations and the demo seed run once, before any server process starts.
  const created = await startupStep('opening the database', () => createDatabaseIfMissing(config.db));
  if (created) process.stderr.write(`${created}\n`);
  const handle = await startupStep('opening the database', () => createDb(config.db));
  await startupStep('migrating the database', () => migrateToLatest(handle.db));
  if (config.seedDemo) await startupStep('loading the demo data', () => seedDemoIfEmpty(handle.db));
  if (config.workers > 1) await supervise(config, handle);
  else await serve(config, handle);
}

/**
 * Serves HTTP: on the port (one process), or as one of the supervisor's server processes,
 * which open their own database connection. Background work (the webhook worker) starts only
 * once the port is ours: a start that fails leaves nothing half running.
 */
async function serve(config: Config, handle?: DbHandle): Promise<void> {
  const app = await startupStep('building the application', () =>
    buildApp(config, { db: handle, migrate: false }),
  );
  if (!serverProcess) for (const warning of config.warnings) app.log.warn(warning);
  // Server processes wake the supervisor's webhook worker; one process wakes its own.
  let background = { start: (): BackgroundWork => ({ stop: async () => {} }) };
  if (!serverProcess) background = prepareBackgroundWork(app);
  else if (config.runWorker) afterWrites(app, () => process.send?.(WAKE_WEBHOOKS));
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    throw new StartupError(describeListenError(err, config.host, config.port), { cause: err });
  }

  const started = background.start();
  // The retention job: in every process that is not one of a supervisor's server processes
  // (the supervisor runs it then); its lease in the database makes it run once for all.
  const retention = serverProcess
    ? undefined
    : retentionJob(app.db, app.log.child({ component: 'retention' }), {
        webhookDeliveryRetentionDays: config.webhookDeliveryRetentionDays,
        changeFeedRetentionDays: config.changeFeedRetentionDays,
      });
  retention?.start();
  const work: BackgroundWork = {
    stop: async () => void (await Promise.all([started.stop(), retention?.stop()])),
  };

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    const limitMs = config.drainLimitMs;
    const threadsBoundMs = exitReserveMs(limitMs) / 2;
    drain(app, work, handle, signal, limitMs).then(
      () => exitAfterThreads(0, threadsBoundMs),
      (err: unknown) => {
        app.log.error({ err }, 'shutdown failed');
        return exitAfterThreads(1, threadsBoundMs);
      },
    );
  };
  // Ctrl-C reaches every process of the group: a server process leaves it to the supervisor,
  // which stops them in order.
  process.on('SIGINT', () => (serverProcess ? undefined : shutdown('SIGINT')));
  process.on('SIGTERM', () => shutdown('SIGTERM'));

  const address = app.server.address();
  announceReady(typeof address === 'object' && address ? address.port : config.port);
}

/**
 * Stops taking connections and lets the requests in flight finish (a request arriving on a
 * kept-alive connection meanwhile is answered 503, see plugins/closing.ts), and the webhook
 * attempts in flight too; then closes the database. Throws if any of it failed.
 */
async function drain(
  app: FastifyInstance,
  background: BackgroundWork,
  handle: DbHandle | undefined,
  signal: string,
  limitMs: number,
): Promise<void> {
  app.log.info({ signal }, 'shutting down: finishing the requests in flight');
  // What the stop still waits for, named when it takes too long.
  const waiting = new Set(['requests', 'background work']);
  const drainMs = limitMs - exitReserveMs(limitMs);
  boundStop(limitMs, () =>
    app.log.error(
      {
        waiting: [...waiting],
        connections: openConnections(app.server),
        handlers: app.stillRunning().slice(0, 20),
      },
      `still busy after ${drainMs / 1000} s; exiting anyway`,
    ),
  );
  const step = (name: string, work: Promise<unknown>) => work.finally(() => waiting.delete(name));
  const results = await Promise.allSettled([
    step('requests', app.close()),
    step('background work', background.stop()),
  ]);
  waiting.add('the database');
  // The database last: the requests and deliveries above may still have needed it.
  results.push(...(await Promise.allSettled([handle?.destroy()])));
  const failures = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
  if (failures.length > 0)
    throw failures.length === 1 ? failures[0] : new AggregateError(failures, 'shutdown failed');
  app.log.info('stopped');
}
