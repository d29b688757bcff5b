// The thread side of ocr.pool.ts: one document per message. Tesseract runs in a worker of
// its own started from this thread; ending this thread (time limit) ends it too.
import { serveJobs } from '../../../shared/worker-pool.js';
import { type OcrJob, type OcrResult, runOcrJob } from './ocr-job.js';

serveJobs<OcrJob, OcrResult>(runOcrJob);
