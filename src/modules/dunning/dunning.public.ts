/**
 * The front door of dunning for other modules and the worker. Dunning builds on outgoing
 * invoices (their totals, parties and PDFs) and reads payments' days; nothing builds on it.
 */

export {
  type Clock,
  DunningScheduler,
  type DunningSchedulerOptions,
  systemClock,
} from './dunning.scheduler.js';
export { runDunning } from './dunning.service.js';
