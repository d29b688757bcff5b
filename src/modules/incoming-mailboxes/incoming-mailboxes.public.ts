/**
 * The front door of mailbox intake for the processes that run background work: the worker
 * that polls the connected mailboxes, with its own extraction threads.
 */
import type { Config } from '../../config.js';
import type { Db, DbKind } from '../../db/index.js';
import type { WorkerLogger } from '../../shared/job-loop.js';
import { createExtractor } from '../incoming-invoices/incoming-invoices.public.js';
import { MailboxWorker } from './incoming-mailboxes.worker.js';

export { MailboxWorker, type MailboxWorkerOptions } from './incoming-mailboxes.worker.js';

/** The mailbox poller as the service runs it (started with the webhook worker wherever that runs). */
export function mailboxWorkerFor(db: Db, kind: DbKind, config: Config, logger: WorkerLogger) {
  const extractor = createExtractor(config);
  const worker = new MailboxWorker(db, kind, {
    secretKey: config.secretKey,
    extractor,
    maxFileBytes: config.uploadLimit,
    allowPrivate: config.mailboxAllowPrivate,
    logger,
  });
  return {
    start: () => worker.start(),
    stop: async () => {
      await worker.stop();
      await extractor.close();
    },
  };
}
