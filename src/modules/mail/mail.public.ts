/**
 * The front door of mail for the rest of the service: the worker that sends queued messages
 * (started by worker-hooks.ts), and a message as the change feed shows it.
 */
export { getMailMessage } from './mail.service.js';
export { MailWorker, type MailWorkerOptions, wakeMailWorkers } from './mail.worker.js';
