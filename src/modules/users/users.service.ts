import type { Db } from '../../db/index.js';
import { transact } from '../../db/transact.js';
import type { ImportContext } from '../../import/context.js';
import { sameValue } from '../../shared/changes.js';
import { notFound } from '../../shared/errors.js';
import { fromCents, toCents } from '../../shared/money.js';
import type { Page } from '../../shared/paging.js';
import { nowIso } from '../../shared/time.js';
import { type AuthContext, hasScopePrefix } from '../../shared/tokens.js';
import { assertAccountAdmin } from '../account/account.service.js';
import { groupIdsOf } from './groups.read-model.js';
import type { UserRow } from './users.repository.js';
import * as repo from './users.repository.js';
import type { UserBasic, UserFull, UserListQuery, UserRates, UserRatesPut } from './users.schemas.js';

export function toUserBasic(r: UserRow): UserBasic {
  return {
    id: r.id,
    first_name: r.first_name,
    last_name: r.last_name,
    position: r.position,
    active: Boolean(r.active),
  };
}

export function toUserFull(r: UserRow, groupIds: number[]): UserFull {
  return {
    ...toUserBasic(r),
    email: r.email,
    role: r.role === 'admin' ? 'admin' : 'member',
    phone: r.phone,
    language: r.language,
    timezone: r.timezone,
    user_group_ids: groupIds,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

async function getUserRow(db: Db, auth: AuthContext, id: number): Promise<UserRow> {
  const row = await repo.findUser(db, auth.accountId, id);
  if (!row) throw notFound('User');
  return row;
}

export async function getUserFull(db: Db, auth: AuthContext, id: number): Promise<UserFull> {
  const row = await getUserRow(db, auth, id);
  const groups = await groupIdsOf(db, [row.id]);
  return toUserFull(row, groups.get(row.id) ?? []);
}

/**
 * The specification's widening: full data with any `user:` scope, or with a `user-profile:`
 * scope when the user asked for is the token's own user; basic data otherwise.
 */
export async function getUser(db: Db, auth: AuthContext, id: number): Promise<UserFull | UserBasic> {
  const full = hasScopePrefix(auth, 'user:') || (hasScopePrefix(auth, 'user-profile:') && id === auth.userId);
  return full ? getUserFull(db, auth, id) : toUserBasic(await getUserRow(db, auth, id));
}

export const listUsers = (db: Db, auth: AuthContext, q: UserListQuery) =>
  repo.listUsers(db, auth.accountId, q);

export async function withGroups(db: Db, page: Page<UserRow>): Promise<Page<UserFull>> {
  const groups = await groupIdsOf(
    db,
    page.rows.map((r) => r.id),
  );
  return { ...page, rows: page.rows.map((r) => toUserFull(r, groups.get(r.id) ?? [])) };
}

/** Whether the user is one of the account's (for references to a user in other records). */
export const userExists = async (db: Db, accountId: number, userId: number): Promise<boolean> =>
  (await repo.findUser(db, accountId, userId)) !== undefined;

/** The account's users with these ids, in basic form, by id (for lists that embed users). */
export async function usersBasicByIds(
  db: Db,
  accountId: number,
  ids: readonly number[],
): Promise<Map<number, UserBasic>> {
  return new Map((await repo.findUsers(db, accountId, ids)).map((r) => [r.id, toUserBasic(r)]));
}

/** The id of the account's user with this e-mail, if any. */
export const userIdByEmail = (db: Db, accountId: number, email: string): Promise<number | undefined> =>
  repo.userIdByEmail(db, accountId, email);

/**
 * A user named in an import file: the key of a user earlier in the file or, for imports
 * into an existing account, the e-mail address of one of its users.
 */
export async function userRef(ctx: ImportContext, ref: string, where: string): Promise<number> {
  try {
    return ctx.ref('users', ref, where);
  } catch (err) {
    const id = await repo.userIdByEmail(ctx.trx, ctx.accountId, ref);
    if (id !== undefined) return id;
    throw err;
  }
}

const money = (cents: number | null | undefined) => (cents == null ? null : fromCents(cents));

/** GET /users/{id}/rates (beyond the specification): null rates where none were set. */
export async function getUserRates(db: Db, auth: AuthContext, id: number): Promise<UserRates> {
  await getUserRow(db, auth, id);
  const r = await repo.findRates(db, auth.accountId, id);
  return {
    user_id: id,
    hourly_rate: money(r?.hourly_rate),
    cost_rate: money(r?.cost_rate),
    updated_at: r?.updated_at ?? null,
  };
}

/** The console's users page: each listed user's rates (null where none was set). */
export async function teamRates(
  db: Db,
  accountId: number,
  userIds: number[],
): Promise<Map<number, { hourly_rate: number | null; cost_rate: number | null }>> {
  const rows = await repo.ratesOf(db, accountId, userIds);
  return new Map(
    rows.map((r) => [r.user_id, { hourly_rate: money(r.hourly_rate), cost_rate: money(r.cost_rate) }]),
  );
}

/**
 * PUT /users/{id}/rates: only an administrator of the account sets them (403 otherwise, as for
 * the company profile). A change moves the user's updated_at, so the change feed shows it.
 */
export function setUserRates(db: Db, auth: AuthContext, id: number, body: UserRatesPut): Promise<UserRates> {
  return transact(db, async (trx) => {
    await assertAccountAdmin(trx, auth.accountId, auth.userId);
    await getUserRow(trx, auth, id);
    const current = await repo.findRates(trx, auth.accountId, id);
    const hourly = body.hourly_rate === null ? null : toCents(body.hourly_rate)!;
    const cost = body.cost_rate === null ? null : toCents(body.cost_rate)!;
    const same =
      current !== undefined && sameValue(current.hourly_rate, hourly) && sameValue(current.cost_rate, cost);
    if (!same && !(current === undefined && hourly === null && cost === null)) {
      const now = nowIso();
      await repo.upsertRates(trx, {
        user_id: id,
        account_id: auth.accountId,
        hourly_rate: hourly,
        cost_rate: cost,
        updated_at: now,
      });
      await repo.touchUser(trx, auth.accountId, id, now);
    }
    return getUserRates(trx, auth, id);
  });
}
