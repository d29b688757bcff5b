import { applyExtraction } from '../incoming-invoices.service.js';
import { fieldsFromLayout } from '../layout/fields.js';
import type { JobSteps } from './steps.js';

/**
 * The job's steps as the application runs them: the layout reader shared with the PDF text
 * layer, and the service that stores an outcome on the document (explicit request fields win).
 */
export const defaultSteps: JobSteps = {
  fieldsFromLayout,
  async store(trx, accountId, invoiceId, outcome, status) {
    await applyExtraction(trx, accountId, invoiceId, outcome, status);
  },
};
