/**
 * The front door of dunning for other modules and the worker. Dunning builds on outgoing
 * invoices (their totals, parties and PDFs) and reads payments' days; payments call it to keep
 * the letters of an invoice settled while the invoice is paid.
 */

export { letterTitle } from './dunning.pdf.js';
export {
  type Clock,
  DunningScheduler,
  type DunningSchedulerOptions,
  systemClock,
} from './dunning.scheduler.js';
export { lettersPerTransaction, runDunning } from './dunning.service.js';
export { syncSettlement } from './settlement.service.js';
