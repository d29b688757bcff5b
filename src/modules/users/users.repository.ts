import type { Kysely, Selectable } from 'kysely';
import type { UserTable } from '../../db/core.tables.js';
import type { Database } from '../../db/schema.js';
import { paginate, type Sortable } from '../../shared/paging.js';
import { toIso } from '../../shared/time.js';
import type { UserListQuery } from './users.schemas.js';

export type UserRow = Selectable<UserTable>;
type Db = Kysely<Database>;

export function findUser(db: Db, accountId: number, id: number): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

const USER_SORTABLE: Sortable = { last_name: {}, first_name: {}, email: {} };

export function listUsers(db: Db, accountId: number, q: UserListQuery) {
  let qb = db.selectFrom('users').selectAll().where('account_id', '=', accountId);
  if (q.active !== undefined) qb = qb.where('active', '=', q.active ? 1 : 0);
  if (q.email !== undefined) qb = qb.where('email', '=', q.email.toLowerCase());
  if (q.updated_since) qb = qb.where('updated_at', '>=', toIso(q.updated_since));
  return paginate(qb, q, { sortable: USER_SORTABLE });
}

/** Group ids of each user, for the full form. */
export async function groupIdsOf(db: Db, userIds: number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>(userIds.map((id) => [id, []]));
  if (userIds.length === 0) return out;
  const rows = await db
    .selectFrom('user_group_members')
    .select(['user_id', 'user_group_id'])
    .where('user_id', 'in', userIds)
    .orderBy('user_group_id')
    .execute();
  for (const r of rows) out.get(r.user_id)?.push(r.user_group_id);
  return out;
}
