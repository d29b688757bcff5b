import { randomUUID } from 'node:crypto';
import type { MailConfig } from '../../config.js';
import type { Db } from '../../db/index.js';
import { transact } from '../../db/transact.js';
import { AppError, notFound, validationFailed } from '../../shared/errors.js';
import { Dec } from '../../shared/money.js';
import type { Page } from '../../shared/paging.js';
import type { PdfDocument } from '../../shared/pdf/types.js';
import { nowIso } from '../../shared/time.js';
import { type AuthContext, hasScope } from '../../shared/tokens.js';
import { assertAccountAdmin, getAccountProfile } from '../account/account.service.js';
import { getClient } from '../clients/clients.service.js';
import { getContact } from '../contacts/contacts.service.js';
import { getOffer, offerPdf, updateOffer } from '../offers/offers.service.js';
import { bookInvoice } from '../outgoing-invoices/booking.service.js';
import { getInvoice, getRow } from '../outgoing-invoices/invoices.service.js';
import { isMaster } from '../outgoing-invoices/outgoing-invoices.public.js';
import { invoicePdf, type PdfBytes } from '../outgoing-invoices/pdf.service.js';
import { invoiceXml } from '../outgoing-invoices/xml.service.js';
import {
  type AttachmentKind,
  attachmentsFor,
  BUILT_IN_TEMPLATES,
  einvoiceGateErrors,
  htmlOf,
  type MailLanguage,
  offerPlaceholderValues,
  placeholderValues,
  type Recipients,
  renderMessage,
  resolveRecipients,
  subjectLine,
  TEMPLATE_KINDS,
  type Template,
  type TemplateKind,
  unknownPlaceholders,
} from './mail.domain.js';
import * as repo from './mail.repository.js';
import type { DocumentSendBody, MailMessage, MailTemplate, SendBody, TemplatesBody } from './mail.schemas.js';
import { toMailMessage } from './mail.views.js';

export const OUTGOING_INVOICE = 'outgoing_invoice';
export { toMailMessage };

/** Who may read a document's messages: who may read the document. */
const READ_SCOPE: Record<string, string> = {
  outgoing_invoice: 'outgoing-invoice:read',
  offer: 'offer:read',
  dunning: 'dunning:read',
};

/**
 * One message by id (the change feed reads it so): a message of an offer or a dunning letter
 * needs the read scope of its document too (the feed leaves it out otherwise).
 */
export async function getMailMessage(db: Db, auth: AuthContext, id: number): Promise<MailMessage> {
  const row = await repo.findMessage(db, auth.accountId, id);
  if (!row) throw notFound('Mail message');
  const scope = READ_SCOPE[row.document_type] ?? 'outgoing-invoice:read';
  if (!hasScope(auth, scope))
    throw new AppError('insufficient_scope', `The message of a ${row.document_type} needs ${scope}`, {
      extra: { required_scopes: [scope] },
    });
  return toMailMessage(row);
}

/** `GET /outgoing-invoices/{id}/messages`: 404 for an invoice not in the account. */
export async function listInvoiceMessages(
  db: Db,
  auth: AuthContext,
  invoiceId: number,
  q: { page?: number; per_page?: number },
): Promise<Page<repo.MailMessageRow>> {
  await getInvoice(db, auth, invoiceId);
  return repo.listMessages(db, auth.accountId, OUTGOING_INVOICE, invoiceId, q);
}

export const mailNotConfigured = () =>
  new AppError(
    'mail_not_configured',
    'No mail relay is configured: set SMTP_URL and MAIL_FROM (docs/mail.md)',
  );

/** A display name that is safe inside a quoted From header. */
const displayName = (name: string) => name.replace(/["\\\r\n]+/g, ' ').trim();

const XML_SYNTAX = { cii: 'cii', ubl: 'ubl' } as const;

/**
 * Queues a booked invoice or credit for sending (`POST /outgoing-invoices/{id}/send`): checks
 * the format's rules (422 `einvoice_invalid`), picks the recipients and the texts, attaches
 * the very bytes its PDF and XML downloads answer, and writes message, attachments and job
 * in one transaction. The worker sends it; nothing is sent here.
 */
export async function sendInvoice(
  db: Db,
  auth: AuthContext,
  id: number,
  body: SendBody,
  mail: MailConfig | null,
): Promise<MailMessage> {
  if (!mail) throw mailNotConfigured();
  if (body.book) {
    if (!hasScope(auth, 'outgoing-invoice:book'))
      throw new AppError(
        'insufficient_scope',
        'Booking and sending in one step needs outgoing-invoice:book too',
        {
          extra: { required_scopes: ['outgoing-invoice:send', 'outgoing-invoice:book'] },
        },
      );
    const current = await getRow(db, auth, id);
    // One transaction: a refusal after booking (the gate, no recipient) undoes the booking too.
    if (!isMaster(current.type) && current.status !== 'booked')
      return transact(db, async (trx) => {
        await bookInvoice(trx, auth, id, {});
        return queueInvoice(trx, auth, id, body, mail);
      });
  }
  return queueInvoice(db, auth, id, body, mail);
}

async function queueInvoice(
  db: Db,
  auth: AuthContext,
  id: number,
  body: SendBody,
  mail: MailConfig,
): Promise<MailMessage> {
  const row = await getRow(db, auth, id);
  if (isMaster(row.type) || row.status !== 'booked')
    throw new AppError(
      'not_booked',
      isMaster(row.type)
        ? 'A plan master is not sent; its invoices are, once booked'
        : 'Only a booked invoice or credit is sent: book it first',
    );
  const [invoice, client, account] = await Promise.all([
    getInvoice(db, auth, id),
    row.client_id ? getClient(db, auth, row.client_id) : undefined,
    getAccountProfile(db, auth.accountId),
  ]);
  const contact = row.contact_id
    ? await getContact(db, auth, row.contact_id).catch(() => undefined)
    : undefined;
  const format = client?.einvoice_format ?? 'zugferd';
  // Uploaded invoices have no frozen document: only their PDF.
  const doc: PdfDocument | null = row.document && !row.external ? JSON.parse(row.document) : null;
  const gate = einvoiceGateErrors(doc, format);
  if (gate.length > 0)
    throw new AppError(
      'einvoice_invalid',
      `The invoice cannot be sent as ${format}: ${gate.map((e) => e.message).join('; ')}`,
      { errors: gate },
    );
  const recipients = resolveRecipients(body, {
    invoiceEmail: client?.invoice_email,
    contactEmail: contact?.email,
    clientEmail: client?.email,
  });
  if (!recipients)
    throw validationFailed([
      { field: 'to', message: 'no recipient: give `to`, or set the client’s `invoice_email` or `email`' },
    ]);

  const language: MailLanguage =
    body.language ?? (doc?.language === 'de' || client?.language === 'de' ? 'de' : 'en');
  const template = await templateFor(
    db,
    auth.accountId,
    language,
    row.type === 'credit' ? 'credit' : 'invoice',
  );
  const values = placeholderValues(
    {
      number: invoice.invoice_number,
      date: invoice.date,
      due_date: invoice.due_date,
      currency: invoice.currency,
      gross_total: new Dec(String(invoice.gross_total)).toFixed(2),
      amount_due: new Dec(String(invoice.open_total)).toFixed(2),
      client_name: client?.name ?? null,
      company_name: account.name,
    },
    language,
  );
  const texts = renderMessage(template, values, body);

  const files = await Promise.all(
    attachmentsFor(doc ? format : 'zugferd').map(async (kind: AttachmentKind) => {
      const bytes: PdfBytes =
        kind === 'pdf' ? await invoicePdf(db, auth, id) : await invoiceXml(db, auth, id, XML_SYNTAX[kind]);
      return { bytes, contentType: kind === 'pdf' ? 'application/pdf' : 'application/xml' };
    }),
  );
  return queueDocumentMessage(db, mail, {
    accountId: auth.accountId,
    documentType: OUTGOING_INVOICE,
    documentId: id,
    recipients,
    texts,
    language,
    attachments: files,
    integrationId: auth.integrationId,
  });
}

/** What kinds of document a message may carry (`mail_messages.document_type`). */
export type MailDocumentType = 'outgoing_invoice' | 'offer' | 'dunning';

/** A message for a document, ready to queue: recipients, texts and the attachments' bytes. */
export interface DocumentMessage {
  accountId: number;
  documentType: MailDocumentType;
  documentId: number;
  recipients: Recipients;
  /** The plain text; the HTML part is made from it. The subject becomes one line. */
  texts: { subject: string; text: string };
  language: MailLanguage;
  attachments: { bytes: PdfBytes; contentType: string }[];
  /** The app that asked for it; null for the service's own (a scheduled run). */
  integrationId: number | null;
}

/**
 * Queues a message for a document: message, attachments (the bytes as given, kept so a retry
 * sends exactly them) and its job, in the caller's transaction when `db` is one (a savepoint
 * of it), else in one of its own. From is MAIL_FROM with the account's name, Reply-To the
 * account's e-mail. The worker sends it; nothing is sent here.
 */
export async function queueDocumentMessage(
  db: Db,
  mail: MailConfig,
  m: DocumentMessage,
): Promise<MailMessage> {
  const account = await getAccountProfile(db, m.accountId);
  const now = nowIso();
  const domain = mail.from.slice(mail.from.lastIndexOf('@') + 1);
  const inserted = await transact(db, (trx) =>
    repo.insertQueued(
      trx,
      {
        account_id: m.accountId,
        document_type: m.documentType,
        document_id: m.documentId,
        from_address: `"${displayName(account.name)}" <${mail.from}>`,
        reply_to: account.email,
        to_addresses: JSON.stringify(m.recipients.to),
        cc_addresses: JSON.stringify(m.recipients.cc),
        bcc_addresses: JSON.stringify(m.recipients.bcc),
        subject: subjectLine(m.texts.subject),
        text_body: m.texts.text,
        html_body: htmlOf(m.texts.text),
        language: m.language,
        attachments: JSON.stringify(
          m.attachments.map((f) => ({
            name: f.bytes.filename,
            content_type: f.contentType,
            size: f.bytes.data.length,
            sha256: f.bytes.sha256,
          })),
        ),
        message_id: `<${randomUUID()}@${domain}>`,
        next_attempt_at: now,
        integration_id: m.integrationId,
        created_at: now,
        updated_at: now,
      },
      m.attachments.map((f) => ({
        filename: f.bytes.filename,
        content_type: f.contentType,
        data: f.bytes.data,
      })),
      now,
    ),
  );
  return toMailMessage(inserted);
}

/** A document's messages, oldest first (the caller has checked the document is the account's). */
export const listDocumentMessages = (
  db: Db,
  accountId: number,
  documentType: MailDocumentType,
  documentId: number,
  q: { page?: number; per_page?: number },
): Promise<Page<repo.MailMessageRow>> => repo.listMessages(db, accountId, documentType, documentId, q);

// ---------------------------------------------------------------------------------------------
// Offers

export const OFFER = 'offer';

/** Only an open offer goes out: an accepted or declined one was answered already. */
const SENDABLE_OFFER = ['created', 'sent'];

/**
 * `POST /offers/{id}/send`: an open offer (created or sent) with its PDF, the very bytes of
 * `GET /offers/{id}/pdf`; a created offer becomes `sent` in the transaction that queues it.
 * An accepted or declined offer, or one invoiced, is a 409 `offer_not_open`.
 */
export async function sendOffer(
  db: Db,
  auth: AuthContext,
  id: number,
  body: DocumentSendBody,
  mail: MailConfig | null,
): Promise<MailMessage> {
  if (!mail) throw mailNotConfigured();
  const offer = await getOffer(db, auth, id);
  if (!SENDABLE_OFFER.includes(offer.status) || offer.invoice_id !== null)
    throw new AppError(
      'offer_not_open',
      offer.invoice_id !== null
        ? `Offer ${id} was invoiced (invoice ${offer.invoice_id}): it is not sent again`
        : `Offer ${id} is ${offer.status}: only a created or sent offer is sent`,
    );
  const [client, account] = await Promise.all([
    offer.client_id ? getClient(db, auth, offer.client_id) : undefined,
    getAccountProfile(db, auth.accountId),
  ]);
  const contact = offer.contact_id
    ? await getContact(db, auth, offer.contact_id).catch(() => undefined)
    : undefined;
  const recipients = resolveRecipients(body, {
    invoiceEmail: client?.invoice_email,
    contactEmail: contact?.email,
    clientEmail: client?.email,
  });
  if (!recipients)
    throw validationFailed([
      { field: 'to', message: 'no recipient: give `to`, or set the client’s `invoice_email` or `email`' },
    ]);
  const language: MailLanguage = body.language ?? (client?.language === 'de' ? 'de' : 'en');
  const template = await templateFor(db, auth.accountId, language, 'offer');
  const values = offerPlaceholderValues(
    {
      number: offer.offer_number,
      date: offer.date,
      valid_until: offer.valid_until,
      currency: offer.currency,
      gross_total: new Dec(String(offer.gross_total)).toFixed(2),
      client_name: client?.name ?? null,
      company_name: account.name,
    },
    language,
  );
  const texts = renderMessage(template, values, body);
  return transact(db, async (trx) => {
    if (offer.status === 'created') await updateOffer(trx, auth, id, { status: 'sent' });
    // Rendered after the change of status: the PDF carries the offer's last change.
    const pdf = await offerPdf(trx, auth, id);
    return queueDocumentMessage(trx, mail, {
      accountId: auth.accountId,
      documentType: OFFER,
      documentId: id,
      recipients,
      texts,
      language,
      attachments: [{ bytes: pdf, contentType: 'application/pdf' }],
      integrationId: auth.integrationId,
    });
  });
}

/** `GET /offers/{id}/messages`: 404 for an offer not in the account. */
export async function listOfferMessages(
  db: Db,
  auth: AuthContext,
  offerId: number,
  q: { page?: number; per_page?: number },
): Promise<Page<repo.MailMessageRow>> {
  await getOffer(db, auth, offerId);
  return repo.listMessages(db, auth.accountId, OFFER, offerId, q);
}

/** The account's text for a language and kind, else the built-in one. */
async function templateFor(
  db: Db,
  accountId: number,
  language: MailLanguage,
  kind: TemplateKind,
): Promise<Template> {
  return (await repo.findTemplate(db, accountId, language, kind)) ?? BUILT_IN_TEMPLATES[language][kind];
}

const LANGUAGES: MailLanguage[] = ['de', 'en'];

/** Every language and kind, the account's own text or the built-in one (administrators only). */
export async function listTemplates(
  db: Db,
  auth: Pick<AuthContext, 'accountId' | 'userId'>,
): Promise<MailTemplate[]> {
  await assertAccountAdmin(db, auth.accountId, auth.userId);
  const own = await repo.listTemplates(db, auth.accountId);
  return LANGUAGES.flatMap((language) =>
    TEMPLATE_KINDS.map((kind) => {
      const t = own.find((o) => o.language === language && o.kind === kind);
      const { subject, body } = t ?? BUILT_IN_TEMPLATES[language][kind];
      return { language, kind, subject, body, built_in: !t };
    }),
  );
}

/**
 * Replaces the account's own texts (`PUT`): each language and kind at most once, no unknown
 * placeholder (422 naming each); the ones left out are the built-in texts again.
 */
export async function setTemplates(
  db: Db,
  auth: Pick<AuthContext, 'accountId' | 'userId'>,
  body: TemplatesBody,
): Promise<MailTemplate[]> {
  await assertAccountAdmin(db, auth.accountId, auth.userId);
  const seen = new Set<string>();
  const errors = body.templates.flatMap((t, i) => {
    const key = `${t.language}/${t.kind}`;
    const dup = seen.has(key) ? [{ field: `templates.${i}`, message: `${key} is given twice` }] : [];
    seen.add(key);
    return [
      ...dup,
      ...(['subject', 'body'] as const).flatMap((field) =>
        unknownPlaceholders(t[field], t.kind).map((name) => ({
          field: `templates.${i}.${field}`,
          message: `unknown placeholder {${name}}`,
        })),
      ),
    ];
  });
  if (errors.length > 0) throw validationFailed(errors);
  await transact(db, (trx) => repo.replaceTemplates(trx, auth.accountId, body.templates, nowIso()));
  return listTemplates(db, auth);
}
