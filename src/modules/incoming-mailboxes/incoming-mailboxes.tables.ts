import type { Generated } from 'kysely';

export interface IncomingMailboxTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  host: string;
  port: number;
  tls: number;
  username: string;
  /** AES-256-GCM with a key derived from SECRET_KEY (mailbox.crypto.ts). */
  password_enc: string;
  folder: string;
  /** JSON array of addresses and domains. */
  allowed_senders: string;
  processed_action: string;
  processed_folder: string | null;
  active: Generated<number>;
  user_id: number | null;
  integration_id: number | null;
  /** new, ok, error */
  status: Generated<string>;
  last_error: string | null;
  failures: Generated<number>;
  last_polled_at: string | null;
  next_poll_at: Generated<string>;
  lease_until: string | null;
  lease_token: string | null;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

export interface IncomingMailboxMessageTable {
  id: Generated<number>;
  account_id: number;
  mailbox_id: number;
  message_id: string;
  sender: string | null;
  subject: string | null;
  documents: number;
  created_at: Generated<string>;
}

export interface IncomingMailboxLogTable {
  id: Generated<number>;
  account_id: number;
  mailbox_id: number;
  event: string;
  message_id: string | null;
  sender: string | null;
  subject: string | null;
  filename: string | null;
  incoming_invoice_id: number | null;
  detail: string | null;
  created_at: Generated<string>;
}

declare module '../../db/schema.js' {
  interface Database {
    incoming_mailboxes: IncomingMailboxTable;
    incoming_mailbox_messages: IncomingMailboxMessageTable;
    incoming_mailbox_log: IncomingMailboxLogTable;
  }
}
