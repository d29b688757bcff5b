import { type Insertable, type Selectable, sql, type Transaction } from 'kysely';
import type { Db, DbKind } from '../../db/index.js';
import type { Database } from '../../db/schema.js';
import { type EventKind, recordEvent } from '../../shared/events.js';
import { paginate } from '../../shared/paging.js';
import type { MailAttachmentTable, MailMessageTable } from './mail.tables.js';
import { toMailMessage } from './mail.views.js';

export type MailMessageRow = Selectable<MailMessageTable>;
export type MailAttachmentRow = Selectable<MailAttachmentTable>;

/** A message with its attachments and its job, written together (the caller's transaction). */
export async function insertQueued(
  db: Db,
  message: Insertable<MailMessageTable>,
  attachments: Omit<Insertable<MailAttachmentTable>, 'mail_message_id' | 'position'>[],
  dueAt: string,
): Promise<MailMessageRow> {
  const row = await db.insertInto('mail_messages').values(message).returningAll().executeTakeFirstOrThrow();
  if (attachments.length > 0)
    await db
      .insertInto('mail_attachments')
      .values(attachments.map((a, position) => ({ ...a, mail_message_id: row.id, position })))
      .execute();
  await db.insertInto('mail_jobs').values({ mail_message_id: row.id, next_attempt_at: dueAt }).execute();
  return row;
}

export const findMessage = (db: Db, accountId: number, id: number) =>
  db
    .selectFrom('mail_messages')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();

export function listMessages(
  db: Db,
  accountId: number,
  documentType: string,
  documentId: number,
  q: { page?: number; per_page?: number },
) {
  const qb = db
    .selectFrom('mail_messages')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('document_type', '=', documentType)
    .where('document_id', '=', documentId)
    .orderBy('id');
  return paginate(qb, q);
}

/** A claimed message with what the worker needs to send it. */
export async function loadForSending(db: Db, id: number) {
  const message = await db.selectFrom('mail_messages').selectAll().where('id', '=', id).executeTakeFirst();
  const attachments = await db
    .selectFrom('mail_attachments')
    .select(['filename', 'content_type', 'data'])
    .where('mail_message_id', '=', id)
    .orderBy('position')
    .execute();
  return message ? { message, attachments } : undefined;
}

/** Is any job due? A read, so an idle worker does not take SQLite's write lock. */
export async function hasDue(db: Db, now: string): Promise<boolean> {
  const row = await db
    .selectFrom('mail_jobs')
    .select('mail_message_id')
    .where((eb) =>
      eb.or([
        eb.and([eb('lease_until', 'is', null), eb('next_attempt_at', '<=', now)]),
        eb('lease_until', '<=', now),
      ]),
    )
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export const ABANDONED_ERROR =
  'the worker sending it stopped during the attempt: the outcome is unknown, so it is not sent again (send it anew if it did not arrive)';

/**
 * Claims up to `limit` due jobs for one worker (lease `token` until `leaseUntil`) and returns
 * their message ids. A job whose lease ran out belongs to a worker that died while sending: it
 * may have been sent, so it is not claimed again but failed (at most once).
 *
 * On PostgreSQL the due rows are locked with SKIP LOCKED, so several processes claim at once
 * without waiting for each other, and the UPDATE repeats `lease_until IS NULL`, which a
 * concurrent claim that committed first makes false: no job is ever leased twice. On SQLite
 * the transaction (BEGIN IMMEDIATE) is the only writer.
 */
export async function claimDue(
  db: Db,
  kind: DbKind,
  args: { now: string; leaseUntil: string; token: string; limit: number },
): Promise<{ claimed: number[]; abandoned: number[] }> {
  const { now, leaseUntil, token, limit } = args;
  const lock = kind === 'postgres' ? sql`FOR UPDATE SKIP LOCKED` : sql``;
  return db.transaction().execute(async (trx) => {
    const expired = await sql<{ mail_message_id: number }>`
      DELETE FROM mail_jobs WHERE mail_message_id IN (
        SELECT mail_message_id FROM mail_jobs WHERE lease_until <= ${now} ${lock})
        AND lease_until <= ${now}
      RETURNING mail_message_id`.execute(trx);
    const abandoned = expired.rows.map((r) => r.mail_message_id);
    if (abandoned.length > 0) {
      const failed = await trx
        .updateTable('mail_messages')
        .set({
          status: 'failed',
          last_error: ABANDONED_ERROR,
          failed_at: now,
          next_attempt_at: null,
          updated_at: now,
        })
        .where('id', 'in', abandoned)
        .returningAll()
        .execute();
      for (const m of failed) await announce(trx, m, 'invoice:send_failed');
    }
    const leased = await sql<{ mail_message_id: number }>`
      UPDATE mail_jobs SET lease_until = ${leaseUntil}, lease_token = ${token}
      WHERE mail_message_id IN (
          SELECT mail_message_id FROM mail_jobs
          WHERE lease_until IS NULL AND next_attempt_at <= ${now}
          ORDER BY next_attempt_at, mail_message_id LIMIT ${limit} ${lock})
        AND lease_until IS NULL
      RETURNING mail_message_id`.execute(trx);
    return { claimed: leased.rows.map((r) => r.mail_message_id).sort((a, b) => a - b), abandoned };
  });
}

/**
 * The event of a message that went out or failed for good, in the transaction that records it
 * (webhooks deliver it from there). Only invoices' messages have events.
 */
async function announce(trx: Transaction<Database>, m: MailMessageRow, kind: EventKind): Promise<void> {
  if (m.document_type !== 'outgoing_invoice') return;
  await recordEvent(trx, {
    accountId: m.account_id,
    kind,
    resourceType: 'mail_message',
    resourceId: m.id,
    data: toMailMessage(m),
    integrationId: m.integration_id,
  });
}

/** Extends a held lease; false when it is no longer this worker's. */
export async function renewLease(db: Db, id: number, token: string, leaseUntil: string): Promise<boolean> {
  const r = await db
    .updateTable('mail_jobs')
    .set({ lease_until: leaseUntil })
    .where('mail_message_id', '=', id)
    .where('lease_token', '=', token)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export interface AttemptRecord {
  id: number;
  token: string;
  now: string;
  outcome: 'sent' | 'failed' | 'retry';
  smtpResponse: string | null;
  smtpCode: number | null;
  error: string | null;
  /** When a `retry` is due. */
  retryAt?: string;
}

/**
 * Records one attempt, only while the job is still leased to this worker (false otherwise:
 * it was taken for dead and failed meanwhile, and the message is left as that recorded it).
 */
export async function recordAttempt(db: Db, a: AttemptRecord): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const job =
      a.outcome === 'retry'
        ? await trx
            .updateTable('mail_jobs')
            .set({ lease_until: null, lease_token: null, next_attempt_at: a.retryAt! })
            .where('mail_message_id', '=', a.id)
            .where('lease_token', '=', a.token)
            .returning('mail_message_id')
            .executeTakeFirst()
        : await trx
            .deleteFrom('mail_jobs')
            .where('mail_message_id', '=', a.id)
            .where('lease_token', '=', a.token)
            .returning('mail_message_id')
            .executeTakeFirst();
    if (!job) return false;
    const message = await trx
      .updateTable('mail_messages')
      .set((eb) => ({
        status: a.outcome === 'retry' ? 'queued' : a.outcome,
        attempts: eb('attempts', '+', 1),
        smtp_response: a.smtpResponse,
        smtp_code: a.smtpCode,
        last_error: a.error,
        next_attempt_at: a.outcome === 'retry' ? a.retryAt! : null,
        ...(a.outcome === 'sent' ? { sent_at: a.now } : {}),
        ...(a.outcome === 'failed' ? { failed_at: a.now } : {}),
        updated_at: a.now,
      }))
      .where('id', '=', a.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    if (a.outcome !== 'retry')
      await announce(trx, message, a.outcome === 'sent' ? 'invoice:sent' : 'invoice:send_failed');
    return true;
  });
}

/** Hands a claimed job back untried (the worker is stopping before it began). */
export async function releaseLease(db: Db, id: number, token: string): Promise<void> {
  await db
    .updateTable('mail_jobs')
    .set({ lease_until: null, lease_token: null })
    .where('mail_message_id', '=', id)
    .where('lease_token', '=', token)
    .execute();
}

export const listTemplates = (db: Db, accountId: number) =>
  db.selectFrom('mail_templates').selectAll().where('account_id', '=', accountId).execute();

export const findTemplate = (db: Db, accountId: number, language: string, kind: string) =>
  db
    .selectFrom('mail_templates')
    .select(['subject', 'body'])
    .where('account_id', '=', accountId)
    .where('language', '=', language)
    .where('kind', '=', kind)
    .executeTakeFirst();

/** The account's own texts become exactly `rows` (the caller's transaction). */
export async function replaceTemplates(
  db: Db,
  accountId: number,
  rows: { language: string; kind: string; subject: string; body: string }[],
  now: string,
): Promise<void> {
  await db.deleteFrom('mail_templates').where('account_id', '=', accountId).execute();
  if (rows.length > 0)
    await db
      .insertInto('mail_templates')
      .values(rows.map((r) => ({ ...r, account_id: accountId, updated_at: now })))
      .execute();
}
