import { type Static, Type } from 'typebox';
import { Id, Nullable, PagingQuery, Timestamp } from '../../shared/schemas.js';

const Host = Type.String({ minLength: 1, maxLength: 253, description: 'IMAP server host name or address' });
const Folder = Type.String({ minLength: 1, maxLength: 200 });

const writable = {
  name: Type.String({ minLength: 1, maxLength: 200, description: 'Shown in lists; default: user@host' }),
  host: Host,
  port: Type.Integer({ minimum: 1, maximum: 65535, description: 'Default 993 with TLS, 143 without' }),
  tls: Type.Boolean({ description: 'TLS from the start (IMAPS); default true' }),
  username: Type.String({ minLength: 1, maxLength: 320 }),
  password: Type.String({
    minLength: 1,
    maxLength: 1000,
    description: 'Stored encrypted (AES-256-GCM, key from SECRET_KEY); never answered',
  }),
  folder: { ...Folder, description: 'Folder read; default INBOX' },
  allowed_senders: Type.Array(Type.String({ minLength: 1, maxLength: 320 }), {
    maxItems: 200,
    description:
      'Addresses (`billing@supplier.de`) or domains (`supplier.de`, subdomains too) whose mail is taken; empty: every sender',
  }),
  processed_action: Type.Union([Type.Literal('flag'), Type.Literal('move')], {
    description: '`flag`: a taken message is marked read (\\Seen); `move`: moved to `processed_folder`',
  }),
  processed_folder: Nullable({ ...Folder, description: 'Target of `move` (required then)' }),
  active: Type.Boolean({ description: 'false: not polled' }),
};

export const MailboxCreate = Type.Object(
  {
    name: Type.Optional(writable.name),
    host: writable.host,
    port: Type.Optional(writable.port),
    tls: Type.Optional(writable.tls),
    username: writable.username,
    password: writable.password,
    folder: Type.Optional(writable.folder),
    allowed_senders: Type.Optional(writable.allowed_senders),
    processed_action: Type.Optional(writable.processed_action),
    processed_folder: Type.Optional(writable.processed_folder),
    active: Type.Optional(writable.active),
  },
  { additionalProperties: false },
);
export type MailboxCreate = Static<typeof MailboxCreate>;

export const MailboxUpdate = Type.Object(
  {
    name: Type.Optional(writable.name),
    host: Type.Optional(writable.host),
    port: Type.Optional(writable.port),
    tls: Type.Optional(writable.tls),
    username: Type.Optional(writable.username),
    password: Type.Optional(writable.password),
    folder: Type.Optional(writable.folder),
    allowed_senders: Type.Optional(writable.allowed_senders),
    processed_action: Type.Optional(writable.processed_action),
    processed_folder: Type.Optional(writable.processed_folder),
    active: Type.Optional(writable.active),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type MailboxUpdate = Static<typeof MailboxUpdate>;

export const Mailbox = Type.Object(
  {
    id: Id,
    name: Type.String(),
    host: Type.String(),
    port: Type.Integer(),
    tls: Type.Boolean(),
    username: Type.String(),
    folder: Type.String(),
    allowed_senders: Type.Array(Type.String()),
    processed_action: Type.Union([Type.Literal('flag'), Type.Literal('move')]),
    processed_folder: Nullable(Type.String()),
    active: Type.Boolean(),
    status: Type.Union([Type.Literal('new'), Type.Literal('ok'), Type.Literal('error')], {
      description:
        '`new`: not read yet; `ok`: the last poll worked; `error`: it failed (`last_error`), retried with back-off',
    }),
    last_error: Nullable(Type.String()),
    failures: Type.Integer({ description: 'Polls failed in a row' }),
    last_polled_at: Nullable(Timestamp),
    next_poll_at: Timestamp,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'IncomingMailbox' },
);
export type Mailbox = Static<typeof Mailbox>;

export const MailboxListQuery = Type.Object(PagingQuery, { additionalProperties: false });
export type MailboxListQuery = Static<typeof MailboxListQuery>;

export const MailboxLogEntry = Type.Object(
  {
    id: Id,
    event: Type.Union(
      [Type.Literal('document'), Type.Literal('duplicate'), Type.Literal('skipped'), Type.Literal('error')],
      {
        description:
          '`document`: an incoming invoice was created; `duplicate`: the file was there already (`incoming_invoice_id` is the one it duplicates); `skipped`: a message without documents or from a sender not allowed; `error`: the poll failed (`detail`)',
      },
    ),
    message_id: Nullable(Type.String()),
    sender: Nullable(Type.String()),
    subject: Nullable(Type.String()),
    filename: Nullable(Type.String()),
    incoming_invoice_id: Nullable(Id),
    detail: Nullable(Type.String()),
    created_at: Timestamp,
  },
  { $id: 'IncomingMailboxLogEntry' },
);
export type MailboxLogEntry = Static<typeof MailboxLogEntry>;
