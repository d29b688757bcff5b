import type { Insertable } from 'kysely';
import type { UserTable } from '../../db/core.tables.js';
import type { Db } from '../../db/index.js';
import '../../web/web.tables.js';

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

/** A new user (an invitation or an imported one); its id. */
export async function insertUser(db: Db, values: Insertable<UserTable>): Promise<number> {
  const row = await db.insertInto('users').values(values).returning('id').executeTakeFirstOrThrow();
  return row.id;
}
