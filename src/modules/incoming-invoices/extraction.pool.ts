import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../../config.js';
import { AppError } from '../../shared/errors.js';
import { WorkerPool } from '../../shared/worker-pool.js';
import { DEFAULT_LIMITS, type ExtractionJob, type ExtractionResult } from './extraction.js';

/**
 * Reads uploaded documents in worker threads: a hostile PDF or XML costs a thread its time
 * and memory budget, never the event loop. One extractor per app (closed with it); the
 * `{ fields, warnings }` answer is what a durable job queue would store as well.
 */
export interface Extractor {
  extract(data: Buffer, contentType: string): Promise<ExtractionResult>;
  close(): Promise<void>;
}

/** Documents that may wait per thread: beyond that an upload is refused with 503, not queued. */
const QUEUE_PER_THREAD = 4;
/** Seconds a refused client is told to wait: about one document's worst case. */
const RETRY_AFTER_S = 5;

const entry = new URL(`./extraction.worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

export function createExtractor(config: Config): Extractor {
  const pool = new WorkerPool<ExtractionJob, ExtractionResult>({
    entry,
    size: config.extractionThreads,
    maxQueue: config.extractionThreads * QUEUE_PER_THREAD,
    timeoutMs: config.extractionTimeoutMs,
    resourceLimits: {
      maxOldGenerationSizeMb: config.extractionMemoryMb,
      maxYoungGenerationSizeMb: Math.max(4, Math.round(config.extractionMemoryMb / 8)),
    },
  });
  const limits = { ...DEFAULT_LIMITS, maxDecodedBytes: config.extractionMaxDecodedBytes };
  return {
    async extract(data, contentType) {
      // A copy the thread owns: the upload's buffer may be a slice of a shared pool.
      const copy = new Uint8Array(data);
      const outcome = await pool.run({ data: copy, contentType, limits }, [copy.buffer]);
      if (outcome.ok) return outcome.value;
      if (outcome.reason === 'busy' || outcome.reason === 'closed')
        throw new AppError(
          'unavailable',
          'Too many documents are being read at the moment; try again shortly',
          {
            headers: { 'retry-after': String(RETRY_AFTER_S) },
          },
        );
      return { fields: {}, warnings: [outcome.reason === 'crashed' ? 'unreadable' : outcome.reason] };
    },
    close: () => pool.close(),
  };
}
