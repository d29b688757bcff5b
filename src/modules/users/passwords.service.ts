import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/index.js';
import { transact } from '../../db/transact.js';
import { AppError, invalidField } from '../../shared/errors.js';
import { hashToken } from '../../shared/tokens.js';
import { clock, isoAt } from '../../web/clock.js';
import { accountIds, findOpenInvite } from './accounts.read-model.js';
import { hashPassword, PASSWORD_MAX, PASSWORD_MIN, passwordProblem } from './passwords.js';
import * as repo from './passwords.repository.js';

/** How long an invitation link works. */
export const INVITE_TTL_HOURS = 72;

function checkNewPassword(password: string): void {
  const problem = passwordProblem(password);
  if (problem === 'too_short') throw invalidField('password', `must be at least ${PASSWORD_MIN} characters`);
  if (problem === 'too_long') throw invalidField('password', `must be at most ${PASSWORD_MAX} characters`);
}

/** The one user with this e-mail (in `accountId` when given). */
export async function userByEmail(db: Db, email: string, accountId?: number) {
  const users = await repo.usersByEmail(db, email.trim().toLowerCase(), accountId);
  if (users.length === 0) throw new AppError('not_found', `No user with the e-mail ${email}`);
  if (users.length > 1)
    throw new AppError(
      'conflict',
      `Users with the e-mail ${email} exist in several accounts: name one with --account`,
    );
  return users[0]!;
}

/**
 * Sets a user's password. Every session of the user ends: a new password is often set
 * because the old one leaked.
 */
export async function setPassword(db: Db, userId: number, password: string): Promise<void> {
  checkNewPassword(password);
  const hash = await hashPassword(password);
  await transact(db, async (trx) => {
    await repo.upsertPasswordHash(trx, userId, hash, isoAt(clock.now()));
    await repo.deleteSessionsOfUser(trx, userId);
  });
}

export interface InviteInput {
  email: string;
  accountId?: number;
  role?: 'admin' | 'member';
  firstName?: string;
  lastName?: string;
}

export interface Invitation {
  user_id: number;
  account_id: number;
  email: string;
  created_user: boolean;
  /** The one-time link; only its hash is stored. */
  url: string;
  expires_at: string;
}

/**
 * Makes a one-time link with which a user sets their password, creating the user first
 * when the account has none with this e-mail (then the names are needed). Earlier unused
 * links of the user stop working.
 */
export async function inviteUser(db: Db, input: InviteInput, publicUrl: string): Promise<Invitation> {
  const email = input.email.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw invalidField('email', 'is not an e-mail address');
  const token = randomBytes(32).toString('base64url');
  const expiresAt = isoAt(clock.now() + INVITE_TTL_HOURS * 3600_000);
  return transact(db, async (trx) => {
    let accountId = input.accountId;
    if (accountId === undefined) {
      const existing = await repo.usersByEmail(trx, email);
      if (existing.length === 1) accountId = existing[0]!.account_id;
      else {
        const ids = await accountIds(trx);
        if (ids.length !== 1 || existing.length > 1)
          throw new AppError('unprocessable', 'Several accounts: name one with --account');
        accountId = ids[0]!;
      }
    }
    let user = (await repo.usersByEmail(trx, email, accountId))[0];
    let created = false;
    if (!user) {
      if (!input.firstName || !input.lastName)
        throw new AppError(
          'unprocessable',
          `No user ${email} yet: give --first-name and --last-name to create one`,
        );
      const id = await repo.insertUser(trx, {
        account_id: accountId,
        email,
        first_name: input.firstName,
        last_name: input.lastName,
        role: input.role ?? 'member',
      });
      user = (await repo.usersByEmail(trx, email, accountId))[0]!;
      created = id === user.id;
    }
    if (!user.active) throw new AppError('unprocessable', `User ${email} is deactivated`);
    // Only the newest link works: an older one may have gone to the wrong place.
    await repo.deleteOpenInvites(trx, user.id);
    await repo.insertInvite(trx, user.id, hashToken(token), expiresAt);
    return {
      user_id: user.id,
      account_id: user.account_id,
      email,
      created_user: created,
      url: `${publicUrl}/invite/${token}`,
      expires_at: expiresAt,
    };
  });
}

/** The invitation a link names, if it may still be used. */
export function openInvite(db: Db, token: string) {
  return findOpenInvite(db, hashToken(token), isoAt(clock.now()));
}

/**
 * Sets the password through an invitation, once: a second use (or one racing it) finds no
 * open invitation. Returns the user, or undefined when the link cannot be used (any more).
 */
export async function acceptInvite(db: Db, token: string, password: string) {
  checkNewPassword(password);
  const hash = await hashPassword(password);
  return transact(db, async (trx) => {
    const now = isoAt(clock.now());
    const invite = await findOpenInvite(trx, hashToken(token), now);
    if (!invite || !(await repo.useInvite(trx, invite.id, now))) return undefined;
    await repo.upsertPasswordHash(trx, invite.user_id, hash, now);
    await repo.deleteSessionsOfUser(trx, invite.user_id);
    return { userId: invite.user_id, accountId: invite.account_id };
  });
}
