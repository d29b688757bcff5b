// The thread side of statement.pool.ts: one statement file per message.
import { serveJobs } from '../../shared/worker-pool.js';
import { parseStatementFile } from './recognize.domain.js';
import { StatementError } from './statement.domain.js';
import type { ParseAnswer } from './statement.pool.js';

serveJobs(async (data: Uint8Array): Promise<ParseAnswer> => {
  try {
    return { statements: parseStatementFile(Buffer.from(data.buffer, data.byteOffset, data.byteLength)) };
  } catch (err) {
    if (err instanceof StatementError) return { refused: err.message };
    return { failed: String((err as Error)?.stack ?? err) };
  }
});
