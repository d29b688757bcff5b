import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type JobFailure, WorkerPool } from '../../../shared/worker-pool.js';
import type { OcrJob, OcrResult } from './ocr-job.js';

export interface OcrLimits {
  /** Documents read at once (one thread each; tesseract uses one core per document). */
  threads: number;
  /** Wall time of one document; the thread is ended beyond it. */
  timeoutMs: number;
  /** JavaScript heap of one thread, MB (tesseract's WebAssembly memory comes on top). */
  memoryMb: number;
  /** Pages of a PDF read at most. */
  maxPages: number;
}

export interface OcrReader {
  read(data: Buffer): Promise<OcrResult | { ok: false; error: JobFailure }>;
  close(): Promise<void>;
}

const entry = new URL(`./ocr.worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

/** OCR in worker processes: the process serving requests is never blocked or brought down by it. */
export function createOcrReader(limits: OcrLimits): OcrReader {
  const pool = new WorkerPool<OcrJob, OcrResult>({
    entry,
    size: limits.threads,
    // Jobs are claimed only when a thread is free (see the job worker): nothing waits long here.
    maxQueue: limits.threads * 2,
    timeoutMs: limits.timeoutMs,
    // The language models take a second to load: keep an idle thread for a while.
    idleMs: 5 * 60_000,
    // A process per reader, not a thread: @napi-rs/canvas (rendering) can segfault when a
    // thread that used it ends (a time limit, an idle thread retired), and a segfault ends the
    // whole process. In a child it ends that child; the job fails as `crashed` and is retried.
    processes: true,
    // Requests first: every thread of an OCR process yields to the API (ocr.worker.ts lowers
    // its own where there is no `nice`).
    nice: 10,
    resourceLimits: {
      maxOldGenerationSizeMb: limits.memoryMb,
      maxYoungGenerationSizeMb: Math.max(4, Math.round(limits.memoryMb / 8)),
    },
  });
  return {
    async read(data) {
      const copy = new Uint8Array(data);
      const outcome = await pool.run({ data: copy, maxPages: limits.maxPages }, [copy.buffer]);
      return outcome.ok ? outcome.value : { ok: false, error: outcome.reason };
    },
    close: () => pool.close(),
  };
}
