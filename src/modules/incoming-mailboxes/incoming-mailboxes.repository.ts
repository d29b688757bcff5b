import { type Insertable, type Selectable, sql, type Updateable } from 'kysely';
import type { Db, DbKind } from '../../db/index.js';
import { paginate } from '../../shared/paging.js';
import type { MailboxListQuery } from './incoming-mailboxes.schemas.js';
import type {
  IncomingMailboxLogTable,
  IncomingMailboxMessageTable,
  IncomingMailboxTable,
} from './incoming-mailboxes.tables.js';

export type MailboxRow = Selectable<IncomingMailboxTable>;
export type LogRow = Selectable<IncomingMailboxLogTable>;

export const findMailbox = (db: Db, accountId: number, id: number) =>
  db
    .selectFrom('incoming_mailboxes')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();

export const listMailboxes = (db: Db, accountId: number, q: MailboxListQuery) =>
  paginate(db.selectFrom('incoming_mailboxes').selectAll().where('account_id', '=', accountId), q);

export const insertMailbox = (db: Db, values: Insertable<IncomingMailboxTable>) =>
  db.insertInto('incoming_mailboxes').values(values).returningAll().executeTakeFirstOrThrow();

export const updateMailbox = (
  db: Db,
  accountId: number,
  id: number,
  values: Updateable<IncomingMailboxTable>,
) =>
  db
    .updateTable('incoming_mailboxes')
    .set(values)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();

export async function deleteMailbox(db: Db, accountId: number, id: number): Promise<boolean> {
  const r = await db
    .deleteFrom('incoming_mailboxes')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(r.numDeletedRows) === 1;
}

export const listLog = (db: Db, accountId: number, mailboxId: number, q: MailboxListQuery) =>
  paginate(
    db
      .selectFrom('incoming_mailbox_log')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('mailbox_id', '=', mailboxId),
    q,
  );

export const insertLog = (db: Db, values: Insertable<IncomingMailboxLogTable>) =>
  db.insertInto('incoming_mailbox_log').values(values).execute();

export const messageTaken = async (db: Db, mailboxId: number, messageId: string) =>
  (await db
    .selectFrom('incoming_mailbox_messages')
    .select('id')
    .where('mailbox_id', '=', mailboxId)
    .where('message_id', '=', messageId)
    .executeTakeFirst()) !== undefined;

export const insertMessage = (db: Db, values: Insertable<IncomingMailboxMessageTable>) =>
  db.insertInto('incoming_mailbox_messages').values(values).execute();

const due = (now: string) =>
  sql<boolean>`active = 1 AND next_poll_at <= ${now} AND (lease_until IS NULL OR lease_until <= ${now})`;

/** Is a mailbox due? A read, so an idle worker does not take SQLite's write lock. */
export async function hasDue(db: Db, now: string): Promise<boolean> {
  const row = await db
    .selectFrom('incoming_mailboxes')
    .select('id')
    .where(due(now))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Leases up to `limit` due mailboxes to `token` until `leaseUntil`, in one statement (on
 * PostgreSQL the rows are locked and other workers skip them), so a mailbox is polled by one
 * worker at a time; an expired lease belongs to a dead worker and is taken over.
 */
export async function claimDue(
  db: Db,
  kind: DbKind,
  args: { now: string; leaseUntil: string; token: string; limit: number },
): Promise<MailboxRow[]> {
  const { now, leaseUntil, token } = args;
  const claimed = await sql<MailboxRow>`
    UPDATE incoming_mailboxes
    SET lease_until = ${leaseUntil}, lease_token = ${token}
    WHERE id IN (
        SELECT id FROM incoming_mailboxes WHERE ${due(now)}
        ORDER BY next_poll_at, id LIMIT ${args.limit}
        ${kind === 'postgres' ? sql`FOR UPDATE SKIP LOCKED` : sql``})
      AND ${due(now)}
    RETURNING *`.execute(db);
  return claimed.rows;
}

/** Ends a lease with the poll's outcome; false when the lease is no longer ours. */
export async function settle(
  db: Db,
  id: number,
  token: string,
  values: Updateable<IncomingMailboxTable>,
): Promise<boolean> {
  const r = await db
    .updateTable('incoming_mailboxes')
    .set({ ...values, lease_until: null, lease_token: null })
    .where('id', '=', id)
    .where('lease_token', '=', token)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Extends a held lease (the heartbeat while a poll runs). */
export async function renew(db: Db, id: number, token: string, leaseUntil: string): Promise<boolean> {
  const r = await db
    .updateTable('incoming_mailboxes')
    .set({ lease_until: leaseUntil })
    .where('id', '=', id)
    .where('lease_token', '=', token)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}
