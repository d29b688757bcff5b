import type { Db } from '../../db/index.js';
import { notFound } from '../../shared/errors.js';
import type { Page } from '../../shared/paging.js';
import type { AuthContext } from '../../shared/tokens.js';
import { usersBasicByIds } from '../users/users.public.js';
import type { UserGroupRow } from './user-group.repository.js';
import * as repo from './user-group.repository.js';
import type { UserGroup, UserGroupListQuery } from './user-group.schemas.js';

/** Each group with its members: the users of the group's account, by id. */
async function withMembers(db: Db, accountId: number, rows: UserGroupRow[]): Promise<UserGroup[]> {
  const memberIds = await repo.memberIdsOf(
    db,
    rows.map((r) => r.id),
  );
  const users = await usersBasicByIds(db, accountId, [...memberIds.values()].flat());
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    description: r.description,
    members: (memberIds.get(r.id) ?? []).flatMap((id) => users.get(id) ?? []),
    created_at: r.created_at,
    updated_at: r.updated_at,
  }));
}

export async function listGroups(db: Db, auth: AuthContext, q: UserGroupListQuery): Promise<Page<UserGroup>> {
  const page = await repo.listGroups(db, auth.accountId, q);
  return { ...page, rows: await withMembers(db, auth.accountId, page.rows) };
}

export async function getGroup(db: Db, auth: AuthContext, id: number): Promise<UserGroup> {
  const row = await repo.findGroup(db, auth.accountId, id);
  if (!row) throw notFound('User group');
  return (await withMembers(db, auth.accountId, [row]))[0]!;
}
