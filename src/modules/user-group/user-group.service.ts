import type { Db } from '../../db/index.js';
import type { AuthContext } from '../../plugins/auth.js';
import { notFound } from '../../shared/errors.js';
import type { Page } from '../../shared/paging.js';
import { toUserBasic } from '../users/users.service.js';
import type { UserGroupRow } from './user-group.repository.js';
import * as repo from './user-group.repository.js';
import type { UserGroup, UserGroupListQuery } from './user-group.schemas.js';

async function withMembers(db: Db, rows: UserGroupRow[]): Promise<UserGroup[]> {
  const members = await repo.membersOf(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    description: r.description,
    members: (members.get(r.id) ?? []).map(toUserBasic),
    created_at: r.created_at,
    updated_at: r.updated_at,
  }));
}

export async function listGroups(db: Db, auth: AuthContext, q: UserGroupListQuery): Promise<Page<UserGroup>> {
  const page = await repo.listGroups(db, auth.accountId, q);
  return { ...page, rows: await withMembers(db, page.rows) };
}

export async function getGroup(db: Db, auth: AuthContext, id: number): Promise<UserGroup> {
  const row = await repo.findGroup(db, auth.accountId, id);
  if (!row) throw notFound('User group');
  return (await withMembers(db, [row]))[0]!;
}
