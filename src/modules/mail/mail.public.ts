/**
 * The front door of mail for the rest of the service: the worker that sends queued messages
 * (started by worker-hooks.ts), a message as the change feed shows it, and queueing a message
 * for a document of another module (a dunning letter) with its attachments; the account's
 * texts of the messages (the console's page of them).
 */
export {
  BUILT_IN_TEMPLATES,
  type MailLanguage,
  PLACEHOLDERS_OF,
  type Recipients,
  resolveRecipients,
  TEMPLATE_KINDS,
  type TemplateKind,
} from './mail.domain.js';
export { DocumentSendBody, MailMessage } from './mail.schemas.js';
export {
  type DocumentMessage,
  getMailMessage,
  listDocumentMessages,
  listTemplates,
  type MailDocumentType,
  mailNotConfigured,
  queueDocumentMessage,
  sendInvoice,
  setTemplates,
  toMailMessage,
} from './mail.service.js';
export { MailWorker, type MailWorkerOptions, wakeMailWorkers } from './mail.worker.js';
