import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { createDb } from './db/index.js';
import { migrateToLatest } from './db/migrator.js';
import { seedDemoIfEmpty } from './import/demo.js';

const config = loadConfig();
const handle = createDb(config.db);
await migrateToLatest(handle.db);
if (config.seedDemo) await seedDemoIfEmpty(handle.db);
const app = await buildApp(config, { db: handle, migrate: false });
app.addHook('onClose', async () => handle.destroy());

const workers = await import('./worker-hooks.js').then((m) => m.startBackgroundWork(app));

let closing = false;
async function shutdown(signal: string) {
  if (closing) return;
  closing = true;
  app.log.info({ signal }, 'shutting down');
  const timer = setTimeout(() => process.exit(1), 15_000);
  timer.unref();
  await workers.stop();
  await app.close();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

await app.listen({ port: config.port, host: config.host });
