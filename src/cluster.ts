import cluster, { type Worker } from 'node:cluster';
import pino from 'pino';
import type { Config } from './config.js';
import type { DbHandle } from './db/index.js';
import { wakeExtractionWorkers } from './modules/incoming-invoices/jobs/extraction-jobs.worker.js';
import { wakeMailWorkers } from './modules/mail/mail.public.js';
import { wakeWebhookWorkers } from './modules/webhooks/webhooks.worker.js';
import { retentionJob } from './retention.js';
import { boundStop, exitAfterThreads, exitReserveMs } from './shared/stop.js';
import { isStartupFailure } from './startup.js';
import { extractionWorkerFor, mailWorkerFor, recurringPlansFor, webhookWorkerFor } from './worker-hooks.js';

export const WAKE_WEBHOOKS = 'wake-webhooks';

/** Tells a parent that started this service with an IPC channel (a bench, a test) it serves. */
export function announceReady(port: number): void {
  if (cluster.isPrimary) process.send?.({ ready: true, port });
}

/**
 * Replacing a server process that died: the first after 1 s, then twice as long each time
 * the replacement dies too (a database that is down, a disk that is full), at most 30 s
 * apart. A process that served for a minute counts as healthy again: the next death starts
 * over at 1 s.
 */
export const RESTART_BACKOFF = { firstMs: 1000, maxMs: 30_000, healthyAfterMs: 60_000 };

/**
 * `WORKERS=N` (N > 1): this process supervises N HTTP server processes sharing the port
 * (node:cluster) and runs the webhook worker, which they wake after each write. Everything
 * the server processes share lives in the database (tokens are rechecked against it, rate
 * budgets are leased from it), so N processes answer exactly as one would.
 *
 * A process that dies is replaced, with back-off while replacements keep dying; the others
 * serve on meanwhile. Only when no process ever listened (port in use, database refused) does
 * the supervisor give up: one line on stderr, exit code 1. SIGTERM/SIGINT stop them all
 * gracefully (each finishes its requests in flight).
 */
export async function supervise(config: Config, handle: DbHandle): Promise<void> {
  const log = pino({ level: config.logLevel, name: 'supervisor' });
  for (const warning of config.warnings) log.warn(warning);

  let closing = false;
  let listeningNow = 0;
  let everListened = false;
  let unresolvedAtStart = config.workers; // first processes neither listening nor dead yet
  let failedAtStart = 0;
  let lastStartupError: string | undefined;
  let consecutiveFailures = 0;
  let port = config.port;

  const replaceLater = () => {
    const delay = Math.min(RESTART_BACKOFF.maxMs, RESTART_BACKOFF.firstMs * 2 ** consecutiveFailures);
    consecutiveFailures++;
    log.info({ inMs: delay }, 'starting a replacement server process');
    setTimeout(() => {
      if (!closing) fork();
    }, delay);
  };

  const startResolved = () => {
    if (unresolvedAtStart === 0) return;
    if (--unresolvedAtStart > 0) return;
    if (everListened) {
      log.info({ workers: listeningNow, port }, 'server processes listening');
      announceReady(port);
      // The webhook worker starts once the service serves: a start that fails sends nothing.
      webhooks?.start();
      extraction?.start();
      mail?.start();
      plans?.start();
      retention.start();
      for (; failedAtStart > 0; failedAtStart--) replaceLater();
      return;
    }
    // None could listen: another would fail the same way. The processes' reason, said once.
    process.stderr.write(
      `error: ${lastStartupError ?? 'no server process could start (see the log above)'}\n`,
    );
    stop('startup failure', 1);
  };

  function fork(): Worker {
    const worker = cluster.fork();
    let listenedAt: number | undefined;
    let startupError: string | undefined;
    worker.on('message', (m: unknown) => {
      // A server process committed a write: events to deliver, perhaps a document to read.
      if (m === WAKE_WEBHOOKS) {
        wakeWebhookWorkers();
        wakeExtractionWorkers();
        wakeMailWorkers();
      } else if (isStartupFailure(m)) startupError = lastStartupError = m.startupError;
    });
    worker.once('listening', (address) => {
      listenedAt = Date.now();
      listeningNow++;
      everListened = true;
      port = address.port;
      startResolved();
    });
    // Decide once the process is gone and its last messages (a start-up error) are read.
    worker.once('exit', (code, signal) => {
      const gone = () => {
        if (listenedAt !== undefined) listeningNow--;
        if (closing) return;
        const atStart = unresolvedAtStart > 0 && listenedAt === undefined;
        if (listenedAt !== undefined && Date.now() - listenedAt >= RESTART_BACKOFF.healthyAfterMs)
          consecutiveFailures = 0;
        log.error(
          { pid: worker.process.pid, code, signal, ...(startupError ? { reason: startupError } : {}) },
          listenedAt === undefined ? 'a server process exited before it listened' : 'a server process died',
        );
        if (atStart) {
          failedAtStart++;
          startResolved();
        } else {
          replaceLater();
        }
      };
      if (worker.isConnected()) worker.once('disconnect', gone);
      else gone();
    });
    return worker;
  }

  const webhooks = config.runWorker
    ? webhookWorkerFor(handle.db, handle.kind, config, log.child({ component: 'webhooks' }))
    : undefined;
  const extraction = config.runWorker
    ? extractionWorkerFor(handle.db, handle.kind, config, log.child({ component: 'extraction-jobs' }))
    : undefined;
  // The mail outbox's worker (SMTP_URL): the server processes only queue messages.
  const mail = config.runWorker
    ? mailWorkerFor(handle.db, handle.kind, config, log.child({ component: 'mail' }))
    : undefined;
  // The scheduler of recurring plans: its lease in the database makes it run once for all.
  const plans = config.runWorker
    ? recurringPlansFor(handle.db, config, log.child({ component: 'recurring-plans' }))
    : undefined;
  const retention = retentionJob(handle.db, log.child({ component: 'retention' }), {
    webhookDeliveryRetentionDays: config.webhookDeliveryRetentionDays,
    changeFeedRetentionDays: config.changeFeedRetentionDays,
  });
  for (let i = 0; i < config.workers; i++) fork();

  async function shutdown(signal: string): Promise<void> {
    log.info({ signal }, 'shutting down');
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w && !w.isDead());
    await Promise.all(
      workers.map(
        (w) =>
          new Promise((resolve) => {
            w.once('exit', resolve);
            w.process.kill('SIGTERM');
          }),
      ),
    );
    const results = await Promise.allSettled([
      webhooks?.stop(),
      extraction?.stop(),
      mail?.stop(),
      plans?.stop(),
      retention.stop(),
    ]);
    results.push(...(await Promise.allSettled([handle.destroy()])));
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  function stop(signal: string, exitCode = 0): void {
    if (closing) return;
    closing = true;
    const limitMs = config.drainLimitMs;
    const threadsBoundMs = exitReserveMs(limitMs) / 2;
    // The server processes stop within the same limit (their own bound); one still there at
    // the supervisor's is killed with it.
    boundStop(limitMs, () => {
      log.error(`still busy after ${(limitMs - exitReserveMs(limitMs)) / 1000} s; exiting anyway`);
      for (const w of Object.values(cluster.workers ?? {})) if (w && !w.isDead()) w.process.kill('SIGKILL');
    });
    shutdown(signal).then(
      () => exitAfterThreads(exitCode, threadsBoundMs),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        return exitAfterThreads(1, threadsBoundMs);
      },
    );
  }
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}
