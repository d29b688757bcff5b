// The thread side of extraction.pool.ts: one uploaded document per message.
import { serveJobs } from '../../shared/worker-pool.js';
import { type ExtractionJob, extractInvoiceData } from './extraction.js';

serveJobs((job: ExtractionJob) =>
  extractInvoiceData(
    Buffer.from(job.data.buffer, job.data.byteOffset, job.data.byteLength),
    job.contentType,
    job.limits,
  ),
);
