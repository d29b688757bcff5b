import type { Db } from '../db/index.js';
import './web.tables.js';

export interface SessionRow {
  user_id: number;
  account_id: number;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  role: string;
  email: string;
  first_name: string;
  last_name: string;
  active: number;
}

/** The session with its user; none when the user or the account is gone (cascade). */
export function findSession(db: Db, idHash: string): Promise<SessionRow | undefined> {
  return db
    .selectFrom('web_sessions')
    .innerJoin('users', 'users.id', 'web_sessions.user_id')
    .select([
      'web_sessions.user_id',
      'web_sessions.account_id',
      'web_sessions.created_at',
      'web_sessions.last_seen_at',
      'web_sessions.expires_at',
      'users.role',
      'users.email',
      'users.first_name',
      'users.last_name',
      'users.active',
    ])
    .where('web_sessions.id_hash', '=', idHash)
    .whereRef('users.account_id', '=', 'web_sessions.account_id')
    .executeTakeFirst();
}

export async function insertSession(
  db: Db,
  row: {
    id_hash: string;
    user_id: number;
    account_id: number;
    created_at: string;
    expires_at: string;
    ip: string | null;
    user_agent: string | null;
  },
): Promise<void> {
  await db
    .insertInto('web_sessions')
    .values({ ...row, last_seen_at: row.created_at })
    .execute();
}

export async function touchSession(
  db: Db,
  idHash: string,
  lastSeen: string,
  expiresAt: string,
): Promise<void> {
  await db
    .updateTable('web_sessions')
    .set({ last_seen_at: lastSeen, expires_at: expiresAt })
    .where('id_hash', '=', idHash)
    .execute();
}

export async function deleteSession(db: Db, idHash: string): Promise<void> {
  await db.deleteFrom('web_sessions').where('id_hash', '=', idHash).execute();
}

export async function deleteExpiredSessions(db: Db, now: string): Promise<void> {
  await db.deleteFrom('web_sessions').where('expires_at', '<=', now).execute();
}

export async function accountName(db: Db, accountId: number): Promise<string> {
  const row = await db.selectFrom('accounts').select('name').where('id', '=', accountId).executeTakeFirst();
  return row?.name ?? '';
}
