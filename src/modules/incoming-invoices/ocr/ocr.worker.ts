// The child-process side of ocr.pool.ts: one document per message. Tesseract runs in a worker
// thread of its own started from here; ending this process (time limit) ends it too.
import { setPriority } from 'node:os';
import { serveJobs } from '../../../shared/worker-pool.js';
import { type OcrJob, type OcrResult, runOcrJob } from './ocr-job.js';

// OCR yields the cores to requests: on Linux a thread's nice value is its own (pid 0 = this
// thread) and the tesseract thread started from here inherits it, while the process that
// serves the API keeps its priority. Where that is not allowed, OCR runs at normal priority.
try {
  setPriority(0, 10);
} catch {
  // Not permitted (some containers): no harm beyond the lost preference.
}

serveJobs<OcrJob, OcrResult>(runOcrJob);
