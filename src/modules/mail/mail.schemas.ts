import { type Static, Type } from 'typebox';
import { Email, Id, Nullable, Timestamp } from '../../shared/schemas.js';

const Addresses = (description: string) =>
  Type.Array(Email, { minItems: 1, maxItems: 20, uniqueItems: true, description });

/** What every send takes: recipients, texts, language. */
const sendFields = {
  to: Type.Optional(
    Addresses(
      'Recipients; default: the client’s `invoice_email`, else the e-mail of the document’s contact, else the client’s `email`',
    ),
  ),
  cc: Type.Optional(Type.Array(Email, { maxItems: 20, uniqueItems: true })),
  bcc: Type.Optional(Type.Array(Email, { maxItems: 20, uniqueItems: true })),
  subject: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[^\\r\\n]*$',
      description: 'Replaces the template’s subject; placeholders such as `{invoice_number}` are filled in',
    }),
  ),
  message: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 20000,
      description:
        'Replaces the template’s text (plain text; the HTML part is made from it), placeholders filled in',
    }),
  ),
  language: Type.Optional(
    Type.Union([Type.Literal('de'), Type.Literal('en')], {
      description: 'Language of the template; default: the language the document was printed in',
    }),
  ),
};

/** `POST /offers/{id}/send` and `POST /dunnings/{id}/send`. */
export const DocumentSendBody = Type.Object(sendFields, { additionalProperties: false });
export type DocumentSendBody = Static<typeof DocumentSendBody>;

export const SendBody = Type.Object(
  {
    ...sendFields,
    book: Type.Optional(
      Type.Boolean({
        description:
          '`true` books a draft first (automatic numbering) and sends it, in one step: needs `outgoing-invoice:book` too; a refusal leaves the draft unbooked',
      }),
    ),
  },
  { additionalProperties: false },
);
export type SendBody = Static<typeof SendBody>;

const Attachment = Type.Object({
  name: Type.String(),
  content_type: Type.String(),
  size: Type.Integer({ minimum: 0, description: 'Bytes' }),
  sha256: Type.String({ description: 'SHA-256 of the bytes, hex' }),
});

export const MailMessage = Type.Object(
  {
    id: Id,
    document_type: Type.Union([
      Type.Literal('outgoing_invoice'),
      Type.Literal('offer'),
      Type.Literal('dunning'),
    ]),
    document_id: Id,
    status: Type.Union([Type.Literal('queued'), Type.Literal('sent'), Type.Literal('failed')], {
      description:
        '`queued` (waiting for its first attempt or a retry), `sent` (the relay accepted it), `failed` (refused for good, or given up)',
    }),
    from: Type.String(),
    reply_to: Nullable(Type.String()),
    to: Type.Array(Type.String()),
    cc: Type.Array(Type.String()),
    bcc: Type.Array(Type.String()),
    subject: Type.String(),
    text: Type.String({ description: 'The plain-text part (the HTML part says the same)' }),
    language: Type.String(),
    attachments: Type.Array(Attachment, {
      description: 'Byte for byte what `GET …/pdf` and `GET …/xml` of the document answer',
    }),
    message_id: Type.String({ description: 'The Message-ID header, the same on every attempt' }),
    attempts: Type.Integer({ minimum: 0 }),
    smtp_response: Nullable(
      Type.String({ description: 'The relay’s last answer, e.g. `250 2.0.0 Ok: queued`' }),
    ),
    smtp_code: Nullable(Type.Integer()),
    error: Nullable(Type.String({ description: 'Why the last attempt failed' })),
    next_attempt_at: Nullable(Timestamp),
    sent_at: Nullable(Timestamp),
    failed_at: Nullable(Timestamp),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'MailMessage', description: 'An e-mail sent (or to be sent) for a document' },
);
export type MailMessage = Static<typeof MailMessage>;

const Language = Type.Union([Type.Literal('de'), Type.Literal('en')]);
const Kind = Type.Union([Type.Literal('invoice'), Type.Literal('credit'), Type.Literal('offer')], {
  description: '`invoice` (also deposit, partial and final invoices), `credit` or `offer`',
});

const PLACEHOLDER_HELP =
  'Placeholders of `invoice` and `credit`: `{invoice_number}`, `{invoice_date}`, `{due_date}`, `{amount_due}`, `{gross_total}`, `{currency}`, `{client_name}`, `{company_name}`; of `offer`: `{offer_number}`, `{offer_date}`, `{valid_until}`, `{gross_total}`, `{currency}`, `{client_name}`, `{company_name}`; another name is refused';

const TemplateInput = Type.Object(
  {
    language: Language,
    kind: Kind,
    subject: Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[^\\r\\n]*$',
      description: PLACEHOLDER_HELP,
    }),
    body: Type.String({
      minLength: 1,
      maxLength: 20000,
      description: `Plain text; the HTML part is made from it. ${PLACEHOLDER_HELP}`,
    }),
  },
  { additionalProperties: false },
);

export const TemplatesBody = Type.Object(
  {
    templates: Type.Array(TemplateInput, {
      maxItems: 6,
      description:
        'The account’s own texts, at most one per language and kind; those left out are the built-in ones',
    }),
  },
  { additionalProperties: false },
);
export type TemplatesBody = Static<typeof TemplatesBody>;

export const MailTemplate = Type.Object(
  {
    language: Language,
    kind: Kind,
    subject: Type.String(),
    body: Type.String(),
    built_in: Type.Boolean({ description: 'The service’s own text: the account has not set one' }),
  },
  { $id: 'MailTemplate', description: 'The subject and text of the e-mail that carries a document' },
);
export type MailTemplate = Static<typeof MailTemplate>;
