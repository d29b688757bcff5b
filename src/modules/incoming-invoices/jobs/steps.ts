import type { Db } from '../../../db/index.js';
import type { ExtractionOutcome, ExtractionStatus, PageWords } from '../extraction.model.js';

/**
 * What a job does with what OCR read, given to the worker so that it can be tested alone:
 * `fieldsFromLayout` is the layout reader shared with the PDF text layer, `store` writes the
 * outcome on the document (explicit request fields keep winning) inside the transaction
 * that ends the job.
 */
export interface JobSteps {
  fieldsFromLayout(pages: PageWords[], source: 'ocr'): ExtractionOutcome;
  store(
    trx: Db,
    accountId: number,
    invoiceId: number,
    outcome: ExtractionOutcome,
    status: Exclude<ExtractionStatus, 'pending' | 'skipped'>,
  ): Promise<void>;
}
