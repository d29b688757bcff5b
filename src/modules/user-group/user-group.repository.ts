import type { Kysely, Selectable } from 'kysely';
import type { UserGroupTable, UserTable } from '../../db/core.tables.js';
import type { Database } from '../../db/schema.js';
import { paginate } from '../../shared/paging.js';
import { containsAny } from '../../shared/search.js';
import { toIso } from '../../shared/time.js';
import type { UserGroupListQuery } from './user-group.schemas.js';

export type UserGroupRow = Selectable<UserGroupTable>;
type Db = Kysely<Database>;

export const findGroup = (db: Db, accountId: number, id: number) =>
  db
    .selectFrom('user_groups')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();

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

/** Members of each group (users of the group's account), ordered by user id. */
export async function membersOf(db: Db, groupIds: number[]): Promise<Map<number, Selectable<UserTable>[]>> {
  const out = new Map<number, Selectable<UserTable>[]>(groupIds.map((id) => [id, []]));
  if (groupIds.length === 0) return out;
  const rows = await db
    .selectFrom('user_group_members as m')
    .innerJoin('user_groups as g', 'g.id', 'm.user_group_id')
    .innerJoin('users as u', (j) =>
      j.onRef('u.id', '=', 'm.user_id').onRef('u.account_id', '=', 'g.account_id'),
    )
    .selectAll('u')
    .select('m.user_group_id')
    .where('m.user_group_id', 'in', groupIds)
    .orderBy('u.id')
    .execute();
  for (const { user_group_id, ...user } of rows) out.get(user_group_id)?.push(user);
  return out;
}
