import { randomUUID } from 'node:crypto';
import type { Db, DbKind } from '../../../db/index.js';
import { transact } from '../../../db/transact.js';
import { JobLoop, silentLogger, type WorkerLogger } from '../../../shared/job-loop.js';
import { readBlob } from '../../files/files.public.js';
import type { ExtractionOutcome, ExtractionWarning } from '../extraction.model.js';
import { fileIdOf } from '../incoming-invoices.repository.js';
import type { OcrReader } from '../ocr/ocr.pool.js';
import * as repo from './extraction-jobs.repository.js';
import type { JobSteps } from './steps.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/** Delays before the 2nd and 3rd attempt; after the 3rd the document is `failed`. */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [30 * SECOND, 5 * MINUTE];

export type JobLogger = WorkerLogger;

export interface ExtractionWorkerOptions {
  ocr: OcrReader;
  steps: JobSteps;
  /** Jobs run at once (the OCR reader's threads). */
  concurrency: number;
  pollIntervalMs?: number;
  /** A claim not renewed for this long belongs to a dead worker and is taken over. */
  leaseMs?: number;
  retryDelaysMs?: readonly number[];
  /** Finished jobs are kept this long (the document keeps the outcome for ever). */
  retentionMs?: number;
  logger?: JobLogger;
}

class AttemptFailed extends Error {}

/** Workers of this process, woken right after a request committed (see worker-hooks.ts). */
const local = new Set<ExtractionWorker>();
export function wakeExtractionWorkers(): void {
  for (const w of local) w.wake();
}

/**
 * Runs queued extraction jobs: claims due ones as short leases in the database (any number of
 * workers in any number of processes may run), renews them by a heartbeat while OCR works,
 * and stores the outcome on the document in the transaction that ends the job. A failed
 * attempt is retried after a back-off; after the last the document is `failed` with the
 * warning `ocr_failed`. OCR itself runs in worker threads (ocr.pool.ts): the event loop only
 * waits.
 */
export class ExtractionWorker {
  private readonly opts: Required<ExtractionWorkerOptions>;
  private readonly held = new Map<number, { token: string; lost: boolean }>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly loop: JobLoop;
  private heartbeat: NodeJS.Timeout | undefined;
  private renewing = false;

  constructor(
    private readonly db: Db,
    private readonly kind: DbKind,
    options: ExtractionWorkerOptions,
  ) {
    this.opts = {
      pollIntervalMs: 500,
      leaseMs: 5 * SECOND,
      retryDelaysMs: DEFAULT_RETRY_DELAYS_MS,
      retentionMs: 7 * 24 * 60 * MINUTE,
      logger: silentLogger,
      ...options,
    };
    this.loop = new JobLoop({
      label: 'extraction jobs',
      pollIntervalMs: this.opts.pollIntervalMs,
      logger: this.opts.logger,
      hasRoom: () => this.inFlight.size < this.opts.concurrency,
      round: () => this.fill(this.opts.concurrency - this.inFlight.size),
      housekeeping: () => repo.pruneJobs(this.db, new Date(Date.now() - this.opts.retentionMs).toISOString()),
    });
  }

  get maxAttempts(): number {
    return this.opts.retryDelaysMs.length + 1;
  }

  start(): void {
    if (this.loop.isRunning) return;
    local.add(this);
    this.heartbeat = setInterval(() => void this.renew(), Math.max(10, this.opts.leaseMs / 5));
    this.heartbeat.unref();
    this.loop.start();
  }

  /** Stops claiming and waits for the jobs in flight (their OCR is bounded by its timeout). */
  async stop(): Promise<void> {
    local.delete(this);
    await this.loop.stop();
    // OCR in flight is cut short (its threads end); those jobs are handed back, not failed.
    await this.opts.ocr.close();
    await Promise.allSettled([...this.inFlight]);
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }

  wake(): void {
    this.loop.wake();
  }

  /** Claims what is due (up to the concurrency) and runs it; for tests and tools. */
  async runOnce(): Promise<number> {
    const jobs = await this.claim(this.opts.concurrency);
    await Promise.all(jobs.map((j) => this.run(j)));
    return jobs.length;
  }

  /** Leases due jobs to this worker. Exposed so tests can play a worker that dies holding one. */
  claim(limit: number): Promise<repo.ClaimedJob[]> {
    const now = Date.now();
    return repo.claimDue(this.db, this.kind, {
      now: new Date(now).toISOString(),
      leaseUntil: new Date(now + this.opts.leaseMs).toISOString(),
      token: randomUUID(),
      limit,
    });
  }

  private async fill(free: number): Promise<void> {
    // Ask with a read first: an idle worker takes no write lock.
    if (!(await repo.hasDue(this.db, new Date().toISOString()))) return;
    const jobs = await this.claim(free);
    for (const job of jobs) {
      const p: Promise<void> = this.run(job).finally(() => {
        this.inFlight.delete(p);
        this.wake();
      });
      this.inFlight.add(p);
    }
    if (jobs.length === free) this.wake();
  }

  /** Renews the leases of the jobs in flight; one that could not be renewed is lost. */
  private async renew(): Promise<void> {
    if (this.renewing || this.held.size === 0) return;
    this.renewing = true;
    try {
      const until = new Date(Date.now() + this.opts.leaseMs).toISOString();
      for (const [id, h] of [...this.held]) {
        const renewed = await repo.renewLeases(this.db, [id], h.token, until);
        if (renewed.length === 0) h.lost = true;
      }
    } catch (err) {
      this.opts.logger.warn({ err }, 'extraction jobs: could not renew leases');
    } finally {
      this.renewing = false;
    }
  }

  /** One attempt of one job; never throws. */
  private async run(job: repo.ClaimedJob): Promise<void> {
    const log = { jobId: job.id, invoiceId: job.incoming_invoice_id, attempt: job.attempts };
    this.held.set(job.id, { token: job.lease_token, lost: false });
    try {
      let outcome: ExtractionOutcome;
      try {
        outcome = job.attempts > this.maxAttempts ? this.gaveUp() : await this.read(job);
      } catch (err) {
        const error = err instanceof AttemptFailed ? err.message : String(err);
        await this.failed(job, error);
        return;
      }
      const stored = await transact(this.db, async (trx) => {
        if (
          !(await repo.settleJob(
            trx,
            { id: job.id, token: job.lease_token },
            { status: 'done', now: new Date().toISOString() },
          ))
        )
          return false;
        await this.opts.steps.store(trx, job.account_id, job.incoming_invoice_id, outcome, 'done');
        return true;
      });
      if (!stored)
        this.opts.logger.warn(
          log,
          'extraction job was taken over by another worker; its outcome is not stored',
        );
    } catch (err) {
      // Storing failed (the database away): the lease runs out and the job is claimed again.
      this.opts.logger.error({ ...log, err }, 'extraction job outcome could not be stored');
    } finally {
      this.held.delete(job.id);
    }
  }

  /** A job claimed more often than allowed: its attempts died with their workers. */
  private gaveUp(): never {
    throw new AttemptFailed('the workers running it stopped before it finished');
  }

  private async read(job: repo.ClaimedJob): Promise<ExtractionOutcome> {
    const fileId = await fileIdOf(this.db, job.account_id, job.incoming_invoice_id);
    const data = fileId ? await readBlob(this.db, fileId) : undefined;
    if (!data) throw new AttemptFailed('the document has no file');
    const read = await this.opts.ocr.read(data);
    if (!read.ok) throw new AttemptFailed(`OCR: ${read.error}`);
    const fromLayout = this.opts.steps.fieldsFromLayout(read.pages, 'ocr');
    return {
      ...fromLayout,
      method: 'ocr',
      pages: read.pageCount,
      warnings: [...read.warnings, ...fromLayout.warnings],
    };
  }

  /** An attempt failed: retried after its back-off, or, after the last, the document is `failed`. */
  private async failed(job: repo.ClaimedJob, error: string): Promise<void> {
    const now = new Date();
    const log = { jobId: job.id, invoiceId: job.incoming_invoice_id, attempt: job.attempts, error };
    if (!this.loop.isRunning && error === 'OCR: closed') {
      await repo.releaseJob(this.db, { id: job.id, token: job.lease_token }, now.toISOString());
      this.opts.logger.info(log, 'extraction job handed back: the worker stops');
      return;
    }
    const final = job.attempts >= this.maxAttempts;
    if (!final) {
      const delay = this.opts.retryDelaysMs[job.attempts - 1] ?? 0;
      await repo.settleJob(
        this.db,
        { id: job.id, token: job.lease_token },
        {
          status: 'pending',
          error,
          retryAt: new Date(now.getTime() + delay).toISOString(),
          now: now.toISOString(),
        },
      );
      this.opts.logger.warn(log, 'extraction attempt failed; retried later');
      return;
    }
    const warning: ExtractionWarning = {
      code: 'ocr_failed',
      message: `The document could not be read after ${job.attempts} attempts`,
    };
    await transact(this.db, async (trx) => {
      if (
        !(await repo.settleJob(
          trx,
          { id: job.id, token: job.lease_token },
          { status: 'failed', error, now: now.toISOString() },
        ))
      )
        return;
      await this.opts.steps.store(
        trx,
        job.account_id,
        job.incoming_invoice_id,
        { fields: {}, provenance: {}, warnings: [warning], method: 'ocr' },
        'failed',
      );
    });
    this.opts.logger.error(log, 'extraction failed for good');
  }
}
