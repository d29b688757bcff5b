import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError } from '../../shared/errors.js';
import { WorkerPool } from '../../shared/worker-pool.js';
import { parseStatementFile } from './recognize.domain.js';
import { type ParsedStatement, StatementError } from './statement.domain.js';

/**
 * Reads large statement files in a worker thread: parsing megabytes of CAMT XML is seconds of
 * CPU in one piece, which on the event loop would hold up every other request. Small files
 * (nearly all) are read in place, where a thread's start would cost more than the parse.
 */
export const IN_THREAD_FROM_BYTES = 512 * 1024;

export type ParseAnswer = { statements: ParsedStatement[] } | { refused: string } | { failed: string };

const entry = new URL(`./statement.worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);
let pool: WorkerPool<Uint8Array, ParseAnswer> | undefined;

const STOPPED: Record<string, string> = {
  timeout: 'reading the file took longer than the limit; it was stopped',
  out_of_memory: 'reading the file needed more memory than the limit; it was stopped',
  crashed: 'the file could not be read',
};

/** The statements of a file (recognize.domain.ts); StatementError when it cannot be read. */
export async function readStatementFile(data: Buffer): Promise<ParsedStatement[]> {
  if (data.length < IN_THREAD_FROM_BYTES) return parseStatementFile(data);
  // One thread for the process, started on demand and ended when idle (WorkerPool).
  pool ??= new WorkerPool<Uint8Array, ParseAnswer>({
    entry,
    size: 1,
    maxQueue: 4,
    timeoutMs: 120_000,
    idleMs: 30_000,
    resourceLimits: { maxOldGenerationSizeMb: 1024 },
  });
  // A copy the thread owns: the upload's buffer may be a slice of a shared pool.
  const copy = new Uint8Array(data);
  const outcome = await pool.run(copy, [copy.buffer]);
  if (!outcome.ok) {
    if (outcome.reason === 'busy' || outcome.reason === 'closed')
      throw new AppError(
        'unavailable',
        'Too many statement files are being read at the moment; try again shortly',
        {
          headers: { 'retry-after': '5' },
        },
      );
    throw new StatementError(STOPPED[outcome.reason] ?? outcome.reason);
  }
  const answer = outcome.value;
  if ('refused' in answer) throw new StatementError(answer.refused);
  if ('failed' in answer) throw new Error(`reading a statement file failed: ${answer.failed}`);
  return answer.statements;
}
