import type { Db } from '../../../db/index.js';
import { nowIso } from '../../../shared/time.js';
import { insertJob } from './extraction-jobs.repository.js';

/**
 * Queues the reading of an uploaded document (OCR, a large PDF) by the extraction workers.
 * Call it inside the transaction that stores the document: the job exists exactly when the
 * document does. The document shows `pending` until a worker has stored the outcome.
 * Workers in this process pick it up as soon as the request has answered (worker-hooks.ts),
 * others at their next poll.
 */
export function enqueueExtraction(trx: Db, job: { accountId: number; invoiceId: number }): Promise<number> {
  return insertJob(trx, { ...job, now: nowIso() });
}
