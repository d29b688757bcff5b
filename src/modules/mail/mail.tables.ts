import type { Generated } from 'kysely';

export type MailStatus = 'queued' | 'sent' | 'failed';

export interface MailMessageTable {
  id: Generated<number>;
  account_id: number;
  document_type: string;
  document_id: number;
  status: Generated<MailStatus>;
  from_address: string;
  reply_to: string | null;
  /** JSON arrays of addresses. */
  to_addresses: string;
  cc_addresses: Generated<string>;
  bcc_addresses: Generated<string>;
  subject: string;
  text_body: string;
  html_body: string;
  language: string;
  /** JSON: [{ name, content_type, size, sha256 }]. */
  attachments: Generated<string>;
  message_id: string;
  attempts: Generated<number>;
  smtp_response: string | null;
  smtp_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  sent_at: string | null;
  failed_at: string | null;
  integration_id: number | null;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

export interface MailAttachmentTable {
  id: Generated<number>;
  mail_message_id: number;
  position: number;
  filename: string;
  content_type: string;
  data: Buffer;
}

/** The outbox: one row per message still to go out, leased by the worker sending it. */
export interface MailJobTable {
  mail_message_id: number;
  next_attempt_at: string;
  lease_until: string | null;
  lease_token: string | null;
}

/** The account's own texts; a missing row is the built-in text. */
export interface MailTemplateTable {
  account_id: number;
  language: string;
  kind: string;
  subject: string;
  body: string;
  updated_at: Generated<string>;
}

declare module '../../db/schema.js' {
  interface Database {
    mail_templates: MailTemplateTable;
    mail_messages: MailMessageTable;
    mail_attachments: MailAttachmentTable;
    mail_jobs: MailJobTable;
  }
}
