import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../../config.js';
import { AppError } from '../../shared/errors.js';
import { WorkerPool } from '../../shared/worker-pool.js';
import { DEFAULT_LIMITS, type ExtractionJob } from './extraction.js';
import type { ExtractionOutcome } from './extraction.model.js';

/**
 * Reads uploaded documents in worker threads: a hostile PDF or XML costs a thread its time
 * and memory budget, never the event loop. One extractor per app (closed with it); the
 * outcome is what the durable extraction job stores as well.
 */
export interface Extractor {
  extract(data: Buffer, contentType: string): Promise<ExtractionOutcome>;
  close(): Promise<void>;
}

/** Documents that may wait per thread: beyond that an upload is refused with 503, not queued. */
const QUEUE_PER_THREAD = 4;
/** Seconds a refused client is told to wait: about one document's worst case. */
const RETRY_AFTER_S = 5;

const STOPPED: Record<string, string> = {
  timeout: 'Reading the document took longer than the limit; it was stopped',
  out_of_memory: 'Reading the document needed more memory than the limit; it was stopped',
  unreadable: 'The document could not be read',
};

const entry = new URL(`./extraction.worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

export function createExtractor(config: Config): Extractor {
  const pool = new WorkerPool<ExtractionJob, ExtractionOutcome>({
    entry,
    size: config.extractionThreads,
    maxQueue: config.extractionThreads * QUEUE_PER_THREAD,
    timeoutMs: config.extractionTimeoutMs,
    resourceLimits: {
      maxOldGenerationSizeMb: config.extractionMemoryMb,
      maxYoungGenerationSizeMb: Math.max(4, Math.min(8, Math.round(config.extractionMemoryMb / 8))),
    },
  });
  const limits = {
    ...DEFAULT_LIMITS,
    maxDecodedBytes: config.extractionMaxDecodedBytes,
    maxPages: config.extractionMaxPages,
  };
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
      const code = outcome.reason === 'crashed' ? 'unreadable' : outcome.reason;
      return { fields: {}, provenance: {}, warnings: [{ code, message: STOPPED[code] ?? code }] };
    },
    close: () => pool.close(),
  };
}
