import type { Db } from '../../db/index.js';
import { transact } from '../../db/transact.js';
import { AppError, invalidField } from '../../shared/errors.js';
import { clock, isoAt } from '../../web/clock.js';
import { type Actor, auditByUser } from '../audit/audit.service.js';
import { hashPassword, PASSWORD_MAX, PASSWORD_MIN, passwordProblem, verifyPassword } from './passwords.js';
import * as passwords from './passwords.repository.js';
import { type Invitation, inviteUser } from './passwords.service.js';
import * as repo from './team.repository.js';

/**
 * The console's user management (issue 13): an account's admin lists, invites, deactivates
 * and reactivates users and changes their role; every user changes their own password. Each
 * change is audited in its own transaction. An account always keeps an active admin, and an
 * admin never locks themself out (no deactivating or demoting oneself).
 */
export type { Actor } from '../audit/audit.service.js';

export interface TeamMember {
  id: number;
  email: string;
  name: string;
  role: 'admin' | 'member';
  active: boolean;
  /** active, deactivated, or invited (no password yet, an open link). */
  status: 'active' | 'invited' | 'no_password' | 'deactivated';
  created_at: string;
}

/** Audits a change to user `targetId` by `actor`, in the change's transaction. */
const auditUserChange = (
  trx: Db,
  actor: Actor,
  action: string,
  targetId: number,
  detail?: Record<string, unknown>,
) => auditByUser(trx, actor, 'user', action, targetId, detail);

export async function listTeam(
  db: Db,
  accountId: number,
  page = 1,
): Promise<{ members: TeamMember[]; hasMore: boolean }> {
  const rows = await repo.teamPage(db, accountId, (page - 1) * repo.TEAM_PAGE, isoAt(clock.now()));
  const members = rows.slice(0, repo.TEAM_PAGE).map((r) => ({
    id: r.id,
    email: r.email,
    name: `${r.first_name} ${r.last_name}`.trim(),
    role: r.role === 'admin' ? ('admin' as const) : ('member' as const),
    active: Boolean(r.active),
    status: !r.active
      ? ('deactivated' as const)
      : r.has_password
        ? ('active' as const)
        : r.invited
          ? ('invited' as const)
          : ('no_password' as const),
    created_at: r.created_at,
  }));
  return { members, hasMore: rows.length > repo.TEAM_PAGE };
}

const NAME_MAX = 100;

function checkName(field: string, value: string): string {
  const v = value.trim();
  if (!v) throw invalidField(field, 'is required');
  if (v.length > NAME_MAX) throw invalidField(field, `must be at most ${NAME_MAX} characters`);
  return v;
}

/**
 * Invites a user into the actor's account: creates them (when the e-mail is new there) and
 * makes a one-time link to set a password, shown once to the admin to pass on. Inviting an
 * existing user again replaces their earlier link.
 */
export async function inviteMember(
  db: Db,
  actor: Actor,
  input: { email: string; firstName: string; lastName: string; role: 'admin' | 'member' },
  publicUrl: string,
): Promise<Invitation> {
  const email = input.email.trim();
  if (email.length > 254) throw invalidField('email', 'must be at most 254 characters');
  const firstName = checkName('first_name', input.firstName);
  const lastName = checkName('last_name', input.lastName);
  return transact(db, async (trx) => {
    const invitation = await inviteUser(
      trx,
      { email, accountId: actor.accountId, role: input.role, firstName, lastName },
      publicUrl,
    );
    // Never the link: it is a password in all but name.
    await auditUserChange(trx, actor, 'user.invite', invitation.user_id, {
      email: invitation.email,
      created: invitation.created_user,
      expires_at: invitation.expires_at,
    });
    return invitation;
  });
}

/** A new one-time link for a user of the account who has not set a password (or lost it). */
export async function reinviteMember(
  db: Db,
  actor: Actor,
  userId: number,
  publicUrl: string,
): Promise<Invitation> {
  return transact(db, async (trx) => {
    const user = await repo.findMember(trx, actor.accountId, userId);
    if (!user) throw new AppError('not_found', 'No such user');
    const invitation = await inviteUser(trx, { email: user.email, accountId: actor.accountId }, publicUrl);
    await auditUserChange(trx, actor, 'user.invite', userId, {
      email: invitation.email,
      created: false,
      expires_at: invitation.expires_at,
    });
    return invitation;
  });
}

async function changeable(trx: Db, actor: Actor, userId: number) {
  const user = await repo.findMember(trx, actor.accountId, userId);
  if (!user) throw new AppError('not_found', 'No such user');
  if (user.id === actor.userId)
    throw new AppError('conflict', 'You cannot change your own access: ask another admin', {
      extra: { reason: 'self' },
    });
  return user;
}

async function keepAnAdmin(trx: Db, actor: Actor, user: { id: number; role: string; active: number }) {
  if (
    user.role === 'admin' &&
    user.active &&
    (await repo.otherActiveAdmins(trx, actor.accountId, user.id)) === 0
  )
    throw new AppError('conflict', 'The account must keep an active admin', {
      extra: { reason: 'last_admin' },
    });
}

/** Deactivates (their sessions and tokens stop working at once) or reactivates a user. */
export async function setMemberActive(db: Db, actor: Actor, userId: number, active: boolean): Promise<void> {
  await transact(db, async (trx) => {
    const user = await changeable(trx, actor, userId);
    if (Boolean(user.active) === active) return;
    if (!active) await keepAnAdmin(trx, actor, user);
    await repo.updateMember(trx, actor.accountId, userId, { active: active ? 1 : 0 }, isoAt(clock.now()));
    if (!active) await passwords.deleteSessionsOfUser(trx, userId);
    await auditUserChange(trx, actor, active ? 'user.reactivate' : 'user.deactivate', userId, {
      email: user.email,
    });
  });
}

export async function setMemberRole(
  db: Db,
  actor: Actor,
  userId: number,
  role: 'admin' | 'member',
): Promise<void> {
  await transact(db, async (trx) => {
    const user = await changeable(trx, actor, userId);
    if (user.role === role) return;
    if (role !== 'admin') await keepAnAdmin(trx, actor, user);
    await repo.updateMember(trx, actor.accountId, userId, { role }, isoAt(clock.now()));
    await auditUserChange(trx, actor, 'user.change_role', userId, {
      email: user.email,
      from: user.role,
      to: role,
    });
  });
}

export type PasswordChangeProblem = 'wrong_current' | 'too_short' | 'too_long' | 'mismatch';

/**
 * A user changes their own password, proving the current one. Every session of the user ends
 * (the caller starts a fresh one for the browser that asked): a password is often changed
 * because the old one leaked. Returns what is wrong, or null when it was changed.
 */
export async function changeOwnPassword(
  db: Db,
  actor: Actor,
  input: { current: string; next: string; confirm: string },
): Promise<PasswordChangeProblem | null> {
  const problem = passwordProblem(input.next);
  if (problem) return problem;
  if (input.next !== input.confirm) return 'mismatch';
  const stored = await repo.passwordHashOf(db, actor.userId);
  if (!(await verifyPassword(input.current, stored?.password_hash))) return 'wrong_current';
  // Hashing takes a tenth of a second: not while holding the (SQLite) write lock.
  const hash = await hashPassword(input.next);
  await transact(db, async (trx) => {
    await passwords.upsertPasswordHash(trx, actor.userId, hash, isoAt(clock.now()));
    await passwords.deleteSessionsOfUser(trx, actor.userId);
    await auditUserChange(trx, actor, 'user.change_password', actor.userId);
  });
  return null;
}

export { PASSWORD_MAX, PASSWORD_MIN };
