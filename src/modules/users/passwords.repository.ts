import type { Insertable } from 'kysely';
import type { UserTable } from '../../db/core.tables.js';
import type { Db } from '../../db/index.js';
import '../../web/web.tables.js';

export interface SigninCandidate {
  id: number;
  account_id: number;
  password_hash: string | null;
}

/** Active users with this e-mail (one per account at most), with their password hash if set. */
export function signinCandidates(db: Db, email: string): Promise<SigninCandidate[]> {
  return db
    .selectFrom('users')
    .innerJoin('accounts', 'accounts.id', 'users.account_id')
    .leftJoin('user_passwords', 'user_passwords.user_id', 'users.id')
    .select(['users.id', 'users.account_id', 'user_passwords.password_hash'])
    .where('users.email', '=', email)
    .where('users.active', '=', 1)
    .orderBy('users.id')
    .execute();
}

export function usersByEmail(db: Db, email: string, accountId?: number) {
  let q = db.selectFrom('users').selectAll().where('email', '=', email);
  if (accountId !== undefined) q = q.where('account_id', '=', accountId);
  return q.orderBy('id').execute();
}

export async function upsertPasswordHash(db: Db, userId: number, hash: string, at: string): Promise<void> {
  await db
    .insertInto('user_passwords')
    .values({ user_id: userId, password_hash: hash, updated_at: at })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ password_hash: hash, updated_at: at }))
    .execute();
}

/** Unused invitations of the user: a new link replaces them. */
export async function deleteOpenInvites(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('user_invites').where('user_id', '=', userId).where('used_at', 'is', null).execute();
}

export async function insertInvite(
  db: Db,
  userId: number,
  tokenHash: string,
  expiresAt: string,
): Promise<void> {
  await db
    .insertInto('user_invites')
    .values({ user_id: userId, token_hash: tokenHash, expires_at: expiresAt })
    .execute();
}

/** An unused, unexpired invitation of an active user in an existing account. */
export function findOpenInvite(db: Db, tokenHash: string, now: string) {
  return db
    .selectFrom('user_invites')
    .innerJoin('users', 'users.id', 'user_invites.user_id')
    .innerJoin('accounts', 'accounts.id', 'users.account_id')
    .select(['user_invites.id', 'users.id as user_id', 'users.account_id', 'users.email'])
    .where('user_invites.token_hash', '=', tokenHash)
    .where('user_invites.used_at', 'is', null)
    .where('user_invites.expires_at', '>', now)
    .where('users.active', '=', 1)
    .executeTakeFirst();
}

/** Marks the invitation used; false when another request used it first. */
export async function useInvite(db: Db, id: number, now: string): Promise<boolean> {
  const r = await db
    .updateTable('user_invites')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function deleteSessionsOfUser(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('web_sessions').where('user_id', '=', userId).execute();
}

export async function accountIds(db: Db): Promise<number[]> {
  const rows = await db.selectFrom('accounts').select('id').orderBy('id').limit(2).execute();
  return rows.map((r) => r.id);
}

/** A new user (an invitation or an imported one); its id. */
export async function insertUser(db: Db, values: Insertable<UserTable>): Promise<number> {
  const row = await db.insertInto('users').values(values).returning('id').executeTakeFirstOrThrow();
  return row.id;
}
