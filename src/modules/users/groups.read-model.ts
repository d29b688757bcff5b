import type { Db } from '../../db/index.js';

/**
 * Read model of the users' full form: the groups each user belongs to, read from user-group's
 * member table (read only). One query for a whole page of users; user-group's front door
 * depends on users already (its members are users), so a call back would close a cycle.
 */

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
