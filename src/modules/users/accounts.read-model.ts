import type { Db } from '../../db/index.js';

/**
 * Read model of sign-in and invitations: users (with their passwords and invitations) joined
 * with accounts' table (read only), so a user of an account that is gone never signs in or
 * accepts an invitation, and the first user of a fresh install knows whether it is alone. One
 * query each (sign-in and accepting run inside a transaction): asking account's front door per
 * candidate would add round trips and make users depend on account.
 */

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

export async function accountIds(db: Db): Promise<number[]> {
  const rows = await db.selectFrom('accounts').select('id').orderBy('id').limit(2).execute();
  return rows.map((r) => r.id);
}
