import pino from 'pino';
import { loadConfig } from './config.js';
import { createDb } from './db/index.js';
import { migrateToLatest } from './db/migrator.js';
import { webhookWorkerFor } from './worker-hooks.js';

/**
 * `npm run worker`: the webhook delivery worker alone, for deployments that run the API with
 * RUN_WORKER=false. Any number of these may share one PostgreSQL database.
 */
const config = loadConfig();
const log = pino({ level: config.logLevel, name: 'webhook-worker' });
const handle = createDb(config.db);
await migrateToLatest(handle.db);
const worker = webhookWorkerFor(handle.db, handle.kind, config, log);
worker.start();
log.info({ db: handle.kind }, 'webhook delivery worker started');

let closing = false;
async function shutdown(signal: string) {
  if (closing) return;
  closing = true;
  log.info({ signal }, 'shutting down');
  const timer = setTimeout(() => process.exit(1), 15_000);
  timer.unref();
  await worker.stop();
  await handle.destroy();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
