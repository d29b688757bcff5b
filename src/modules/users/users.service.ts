import type { Db } from '../../db/index.js';
import { type AuthContext, hasScopePrefix } from '../../plugins/auth.js';
import { notFound } from '../../shared/errors.js';
import type { Page } from '../../shared/paging.js';
import type { UserRow } from './users.repository.js';
import * as repo from './users.repository.js';
import type { UserBasic, UserFull, UserListQuery } from './users.schemas.js';

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
  const groups = await repo.groupIdsOf(db, [row.id]);
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
  const groups = await repo.groupIdsOf(
    db,
    page.rows.map((r) => r.id),
  );
  return { ...page, rows: page.rows.map((r) => toUserFull(r, groups.get(r.id) ?? [])) };
}
