import cluster, { type Worker } from 'node:cluster';
import pino from 'pino';
import type { Config } from './config.js';
import type { DbHandle } from './db/index.js';
import { wakeWebhookWorkers } from './modules/webhooks/webhooks.worker.js';
import { webhookWorkerFor } from './worker-hooks.js';

export const WAKE_WEBHOOKS = 'wake-webhooks';

/** Tells a parent that started this service with an IPC channel (a bench, a test) it serves. */
export function announceReady(port: number): void {
  if (cluster.isPrimary) process.send?.({ ready: true, port });
}

/**
 * `WORKERS=N` (N > 1): this process supervises N HTTP server processes sharing the port
 * (node:cluster) and runs the webhook worker, which they wake after each write. Everything
 * the server processes share lives in the database (tokens are rechecked against it, rate
 * budgets are leased from it), so N processes answer exactly as one would. A process that
 * dies is replaced; SIGTERM/SIGINT stop them all gracefully.
 */
export async function supervise(config: Config, handle: DbHandle): Promise<void> {
  const log = pino({ level: config.logLevel, name: 'supervisor' });
  const webhooks = config.runWorker
    ? webhookWorkerFor(handle.db, handle.kind, config, log.child({ component: 'webhooks' }))
    : undefined;
  webhooks?.start();

  let closing = false;
  let started = 0;
  const fork = (): Worker => {
    const worker = cluster.fork();
    worker.on('message', (m) => {
      if (m === WAKE_WEBHOOKS) wakeWebhookWorkers();
    });
    let listening = false;
    worker.once('listening', (address) => {
      listening = true;
      if (++started === config.workers) {
        log.info({ workers: config.workers, port: address.port }, 'server processes listening');
        announceReady(address.port);
      }
    });
    worker.on('exit', (code, signal) => {
      if (closing) return;
      if (!listening) {
        // It never served (bad port, bad config): another would fail the same way.
        log.fatal({ pid: worker.process.pid, code, signal }, 'a server process failed to start');
        void shutdown('startup failure', 1);
        return;
      }
      log.error({ pid: worker.process.pid, code, signal }, 'server process died; starting another');
      setTimeout(fork, 1000).unref();
    });
    return worker;
  };
  for (let i = 0; i < config.workers; i++) fork();

  async function shutdown(signal: string, exitCode = 0) {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'shutting down');
    setTimeout(() => process.exit(1), 15_000).unref();
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w);
    await Promise.all(
      workers.map(
        (w) =>
          new Promise((resolve) => {
            w.once('exit', resolve);
            w.process.kill('SIGTERM');
          }),
      ),
    );
    await webhooks?.stop();
    await handle.destroy();
    process.exit(exitCode);
  }
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}
