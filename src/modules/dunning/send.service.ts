import type { MailConfig } from '../../config.js';
import type { Db } from '../../db/index.js';
import { transact } from '../../db/transact.js';
import { AppError, validationFailed } from '../../shared/errors.js';
import { recordEvent } from '../../shared/events.js';
import { centsToString } from '../../shared/money.js';
import type { Page } from '../../shared/paging.js';
import { formatterFor } from '../../shared/pdf/format.js';
import { nowIso } from '../../shared/time.js';
import type { AuthContext } from '../../shared/tokens.js';
import { recordAudit } from '../audit/audit.service.js';
import {
  type DocumentSendBody,
  listDocumentMessages,
  type MailMessage,
  mailNotConfigured,
  queueDocumentMessage,
  resolveRecipients,
} from '../mail/mail.public.js';
import { documentParties, findInvoice } from '../outgoing-invoices/outgoing-invoices.public.js';
import { fill, type Language, type Level } from './dunning.domain.js';
import type { LetterRow } from './dunning.repository.js';
import * as repo from './dunning.repository.js';
import { getLetter, getLevels, letterPdf, toLetter } from './dunning.service.js';

/**
 * E-mailing dunning letters through the mail outbox (issue 39 point 4): on request
 * (`POST /dunnings/{id}/send`) and, for a level delivered by e-mail, in the run's transaction
 * that makes the letter. A letter becomes `sent` when its message is queued — the message's own
 * status says whether the relay took it — and `dunning:sent` is recorded on that change only,
 * so once per letter however often it is sent.
 */

export const DUNNING = 'dunning';

/** Who asks: a token, or the scheduled run (null). */
type Actor = AuthContext | null;

const CLOSED = ['cancelled', 'settled'];

/** The letter's values for placeholders in a text given with the request or a level's text. */
async function letterValues(db: Db, row: LetterRow, language: Language, company: string, client: string) {
  const invoice = await findInvoice(db, row.account_id, row.invoice_id);
  const f = formatterFor({ language, currency: row.currency });
  const money = (cents: number | string) => f.money(centsToString(Number(cents)));
  return {
    letter_number: row.number,
    letter_date: f.date(row.date),
    invoice_number: invoice?.invoice_number ?? '',
    invoice_date: f.date(invoice?.date ?? null),
    due_date: f.date(invoice?.due_date ?? null),
    open_amount: money(row.open_amount),
    fee: money(row.fee),
    flat_fee: money(row.flat_fee),
    interest: money(row.interest),
    total_due: money(row.total_due),
    client_name: client,
    company_name: company,
  };
}

/**
 * Queues one letter's message in `db` (the caller's transaction, or one of its own) with the
 * letter's PDF, byte for byte `GET /dunnings/{id}/pdf`; marks an open letter `sent`. Null when
 * nobody is there to send to and `required` is false (the run leaves such a letter for post).
 */
export async function queueLetter(
  db: Db,
  row: LetterRow,
  opts: {
    body: DocumentSendBody;
    mail: MailConfig;
    actor: Actor;
    /** The account's levels now: their texts in another language than the letter's. */
    levels: readonly Pick<Level, 'texts'>[];
    required: boolean;
  },
): Promise<MailMessage | null> {
  const { body, mail, actor } = opts;
  const accountId = row.account_id;
  const parties = await documentParties(db, accountId, { client_id: row.client_id, contact_id: null });
  const buyer = parties.buyer as
    | { invoice_email?: string | null; email?: string | null; name?: string }
    | undefined;
  const recipients = resolveRecipients(body, {
    invoiceEmail: buyer?.invoice_email,
    clientEmail: buyer?.email,
  });
  if (!recipients) {
    if (!opts.required) return null;
    throw validationFailed([
      { field: 'to', message: 'no recipient: give `to`, or set the client’s `invoice_email` or `email`' },
    ]);
  }
  const letterLanguage: Language = row.language === 'de' ? 'de' : 'en';
  const language: Language = body.language ?? letterLanguage;
  const values = await letterValues(db, row, language, parties.seller.name, buyer?.name ?? '');
  // The letter's own texts; another language takes the level's texts in it, filled anew.
  const levelTexts = language === letterLanguage ? undefined : opts.levels[row.level - 1]?.texts[language];
  const subject = fill(body.subject ?? levelTexts?.subject ?? row.subject, values);
  const text = fill(body.message ?? levelTexts?.body ?? row.body, values);
  const pdf = await letterPdf(db, { accountId }, row.id);
  return transact(db, async (trx) => {
    // Cancelled or settled meanwhile: nothing goes out.
    const current = await repo.findLetter(trx, accountId, row.id);
    if (!current || CLOSED.includes(current.status))
      throw new AppError('conflict', `The letter is ${current?.status ?? 'gone'}: it is not sent`);
    const message = await queueDocumentMessage(trx, mail, {
      accountId,
      documentType: DUNNING,
      documentId: row.id,
      recipients,
      texts: { subject, text },
      language,
      attachments: [{ bytes: pdf, contentType: 'application/pdf' }],
      integrationId: actor?.integrationId ?? null,
    });
    const now = nowIso();
    const sent = await repo.markLetterSent(trx, accountId, row.id, now);
    if (sent)
      await recordEvent(trx, {
        accountId,
        kind: 'dunning:sent',
        resourceType: 'dunning',
        resourceId: row.id,
        data: toLetter(sent),
        integrationId: actor?.integrationId ?? null,
      });
    await recordAudit(trx, {
      accountId,
      actorUserId: actor?.userId ?? null,
      actorKind: actor ? 'token' : 'cli',
      action: 'dunning.send',
      targetType: 'dunning',
      targetId: row.id,
      detail: {
        ...(actor ? { integration_id: actor.integrationId } : { scheduled: true }),
        number: row.number,
        mail_message_id: message.id,
      },
    });
    return message;
  });
}

/**
 * `POST /dunnings/{id}/send`: an open or sent letter (a sent one again, e.g. to another
 * address); a cancelled or settled letter is a 409, and nothing is queued.
 */
export async function sendLetter(
  db: Db,
  auth: AuthContext,
  id: number,
  body: DocumentSendBody,
  mail: MailConfig | null,
): Promise<MailMessage> {
  if (!mail) throw mailNotConfigured();
  const row = await getLetter(db, auth, id);
  if (CLOSED.includes(row.status))
    throw new AppError('conflict', `The letter is ${row.status}: it is not sent`);
  const { levels } = await getLevels(db, auth);
  return (await queueLetter(db, row, { body, mail, actor: auth, levels, required: true }))!;
}

/** `GET /dunnings/{id}/messages`: 404 for a letter not in the account. */
export async function listLetterMessages(
  db: Db,
  auth: AuthContext,
  id: number,
  q: { page?: number; per_page?: number },
): Promise<Page<Awaited<ReturnType<typeof listDocumentMessages>>['rows'][number]>> {
  await getLetter(db, auth, id);
  return listDocumentMessages(db, auth.accountId, DUNNING, id, q);
}
