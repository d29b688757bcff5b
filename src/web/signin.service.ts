import type { Db } from '../db/index.js';
import { signinCandidates, verifyPassword } from '../modules/users/users.public.js';

export const normalEmail = (email: string) => email.trim().toLowerCase();

/**
 * The active user with this e-mail and password, or null. An e-mail may belong to users of
 * several accounts: the one whose password matches signs in (the lowest id if several do).
 * At least one hash is always verified (a dummy one when no user has a password), so an
 * unknown e-mail takes as long as a wrong password.
 */
export async function authenticate(
  db: Db,
  email: string,
  password: string,
): Promise<{ userId: number; accountId: number } | null> {
  const candidates = (await signinCandidates(db, normalEmail(email))).filter((c) => c.password_hash);
  if (candidates.length === 0) {
    await verifyPassword(password, null);
    return null;
  }
  for (const c of candidates)
    if (await verifyPassword(password, c.password_hash)) return { userId: c.id, accountId: c.account_id };
  return null;
}
