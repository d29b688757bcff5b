import cluster from 'node:cluster';
import { buildApp } from './app.js';
import { announceReady, supervise, WAKE_WEBHOOKS } from './cluster.js';
import { loadConfig } from './config.js';
import { createDb, type DbHandle } from './db/index.js';
import { migrateToLatest } from './db/migrator.js';
import { seedDemoIfEmpty } from './import/demo.js';
import { afterWrites, type BackgroundWork, startBackgroundWork } from './worker-hooks.js';

const config = loadConfig();
const serverProcess = cluster.isWorker;

// Migrations and the demo seed run once, before any server process starts.
if (!serverProcess) {
  const handle = createDb(config.db);
  await migrateToLatest(handle.db);
  if (config.seedDemo) await seedDemoIfEmpty(handle.db);
  if (config.workers > 1) {
    await supervise(config, handle);
  } else {
    await serve(handle);
  }
} else {
  await serve();
}

async function serve(handle?: DbHandle) {
  const app = await buildApp(config, { db: handle, migrate: false });
  if (handle) app.addHook('onClose', async () => handle.destroy());

  let background: BackgroundWork = { stop: async () => {} };
  if (!serverProcess) background = await startBackgroundWork(app);
  else if (config.runWorker) afterWrites(app, () => process.send?.(WAKE_WEBHOOKS));

  let closing = false;
  async function shutdown(signal: string) {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => process.exit(1), 15_000);
    timer.unref();
    await background.stop();
    await app.close();
    process.exit(0);
  }
  // Ctrl-C reaches every process of the group: a server process leaves it to the supervisor,
  // which stops them in order.
  process.on('SIGINT', () => void (serverProcess ? undefined : shutdown('SIGINT')));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  announceReady(typeof address === 'object' && address ? address.port : config.port);
}
