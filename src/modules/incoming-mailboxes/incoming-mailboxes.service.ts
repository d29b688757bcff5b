import type { Db } from '../../db/index.js';
import { changesNothing } from '../../shared/changes.js';
import { invalidField, notFound } from '../../shared/errors.js';
import { nowIso } from '../../shared/time.js';
import type { AuthContext } from '../../shared/tokens.js';
import { decryptPassword, encryptPassword } from './incoming-mailboxes.crypto.js';
import { mailboxAddresses } from './incoming-mailboxes.host.js';
import * as repo from './incoming-mailboxes.repository.js';
import type {
  Mailbox,
  MailboxCreate,
  MailboxListQuery,
  MailboxLogEntry,
  MailboxUpdate,
} from './incoming-mailboxes.schemas.js';

export function toMailbox(r: repo.MailboxRow): Mailbox {
  return {
    id: r.id,
    name: r.name,
    host: r.host,
    port: Number(r.port),
    tls: Boolean(r.tls),
    username: r.username,
    folder: r.folder,
    allowed_senders: JSON.parse(r.allowed_senders) as string[],
    processed_action: r.processed_action as Mailbox['processed_action'],
    processed_folder: r.processed_folder,
    active: Boolean(r.active),
    status: r.status as Mailbox['status'],
    last_error: r.last_error,
    failures: Number(r.failures),
    last_polled_at: r.last_polled_at,
    next_poll_at: r.next_poll_at,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

export const toLogEntry = (r: repo.LogRow): MailboxLogEntry => ({
  id: r.id,
  event: r.event as MailboxLogEntry['event'],
  message_id: r.message_id,
  sender: r.sender,
  subject: r.subject,
  filename: r.filename,
  incoming_invoice_id: r.incoming_invoice_id,
  detail: r.detail,
  created_at: r.created_at,
});

export async function getMailbox(db: Db, auth: AuthContext, id: number): Promise<repo.MailboxRow> {
  const row = await repo.findMailbox(db, auth.accountId, id);
  if (!row) throw notFound('Mailbox');
  return row;
}

export const listMailboxes = (db: Db, auth: AuthContext, q: MailboxListQuery) =>
  repo.listMailboxes(db, auth.accountId, q);

function checkMove(action: string, folder: string | null | undefined) {
  if (action === 'move' && !folder)
    throw invalidField('processed_folder', 'is required when processed_action is move');
}

/** A host the service may connect to (else 422 naming `host`). */
async function checkHost(host: string, allowPrivate: boolean): Promise<void> {
  await mailboxAddresses(host, allowPrivate).catch((err: Error) => {
    throw invalidField('host', err.message);
  });
}

export async function createMailbox(
  db: Db,
  auth: AuthContext,
  body: MailboxCreate,
  secretKey: string,
  allowPrivate: boolean,
) {
  await checkHost(body.host, allowPrivate);
  const tls = body.tls ?? true;
  const action = body.processed_action ?? 'flag';
  checkMove(action, body.processed_folder);
  return repo.insertMailbox(db, {
    account_id: auth.accountId,
    name: body.name ?? `${body.username}@${body.host}`,
    host: body.host,
    port: body.port ?? (tls ? 993 : 143),
    tls: tls ? 1 : 0,
    username: body.username,
    password_enc: encryptPassword(secretKey, body.password, auth.accountId),
    folder: body.folder ?? 'INBOX',
    allowed_senders: JSON.stringify(body.allowed_senders ?? []),
    processed_action: action,
    processed_folder: body.processed_folder ?? null,
    active: body.active === false ? 0 : 1,
    user_id: auth.userId,
    integration_id: auth.integrationId,
    // Due at once, by the clock the worker compares with: the database's now() carries
    // microseconds and may lie after a poll started within the same millisecond.
    next_poll_at: nowIso(),
  });
}

/** A changed connection is polled at once, its error state cleared. */
export async function updateMailbox(
  db: Db,
  auth: AuthContext,
  id: number,
  body: MailboxUpdate,
  secretKey: string,
  allowPrivate: boolean,
): Promise<repo.MailboxRow> {
  const row = await getMailbox(db, auth, id);
  if (body.host !== undefined) await checkHost(body.host, allowPrivate);
  checkMove(body.processed_action ?? row.processed_action, body.processed_folder ?? row.processed_folder);
  const { password, tls, active, allowed_senders, ...plain } = body;
  const values = {
    ...plain,
    ...(tls !== undefined ? { tls: tls ? 1 : 0 } : {}),
    ...(active !== undefined ? { active: active ? 1 : 0 } : {}),
    ...(allowed_senders !== undefined ? { allowed_senders: JSON.stringify(allowed_senders) } : {}),
  };
  const samePassword =
    password === undefined || decryptPassword(secretKey, row.password_enc, auth.accountId) === password;
  // A PATCH that changes nothing keeps updated_at (shared rule: src/shared/changes.ts).
  if (samePassword && changesNothing(row, values)) return row;
  const updated = await repo.updateMailbox(db, auth.accountId, id, {
    ...values,
    ...(samePassword ? {} : { password_enc: encryptPassword(secretKey, password!, auth.accountId) }),
    failures: 0,
    next_poll_at: nowIso(),
    updated_at: nowIso(),
  });
  if (!updated) throw notFound('Mailbox');
  return updated;
}

export async function deleteMailbox(db: Db, auth: AuthContext, id: number): Promise<void> {
  if (!(await repo.deleteMailbox(db, auth.accountId, id))) throw notFound('Mailbox');
}

export async function listLog(db: Db, auth: AuthContext, id: number, q: MailboxListQuery) {
  await getMailbox(db, auth, id);
  return repo.listLog(db, auth.accountId, id, q);
}
