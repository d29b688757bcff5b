import type { Insertable, Selectable } from 'kysely';
import type { UserGroupTable } from '../../db/core.tables.js';
import type { Db } from '../../db/index.js';
import { idsByOwner } from '../../shared/collect.js';
import { findOwned } from '../../shared/owned.js';
import { paginate } from '../../shared/paging.js';
import { containsAny } from '../../shared/search.js';
import { toIso } from '../../shared/time.js';
import type { UserGroupListQuery } from './user-group.schemas.js';

export type UserGroupRow = Selectable<UserGroupTable>;

export const findGroup = (db: Db, accountId: number, id: number) =>
  findOwned(db, 'user_groups', accountId, id);

export function listGroups(db: Db, accountId: number, q: UserGroupListQuery) {
  let qb = db.selectFrom('user_groups').selectAll().where('account_id', '=', accountId);
  if (q.user_id !== undefined) {
    const userId = q.user_id;
    qb = qb.where('id', 'in', (eb) =>
      eb.selectFrom('user_group_members').select('user_group_id').where('user_id', '=', userId),
    );
  }
  if (q.updated_since) qb = qb.where('updated_at', '>=', toIso(q.updated_since));
  if (q.q) qb = qb.where((eb) => containsAny(eb, ['name'], q.q!));
  return paginate(qb.orderBy('id'), q);
}

/** Member user ids of each group, ordered by user id. */
export async function memberIdsOf(db: Db, groupIds: number[]): Promise<Map<number, number[]>> {
  if (groupIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('user_group_members')
    .select(['user_group_id', 'user_id'])
    .where('user_group_id', 'in', groupIds)
    .orderBy('user_id')
    .execute();
  return idsByOwner(
    groupIds,
    rows,
    (r) => r.user_group_id,
    (r) => r.user_id,
  );
}

export async function insertGroup(db: Db, values: Insertable<UserGroupTable>): Promise<number> {
  const row = await db.insertInto('user_groups').values(values).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export async function insertMember(db: Db, groupId: number, userId: number): Promise<void> {
  await db.insertInto('user_group_members').values({ user_group_id: groupId, user_id: userId }).execute();
}
