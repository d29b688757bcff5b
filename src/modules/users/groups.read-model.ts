import type { Db } from '../../db/index.js';
import { idsByOwner } from '../../shared/collect.js';

/**
 * Read model of the users' full form: the groups each user belongs to, read from user-group's
 * member table (read only). One query for a whole page of users; user-group's front door
 * depends on users already (its members are users), so a call back would close a cycle.
 */

/** Group ids of each user, for the full form. */
export async function groupIdsOf(db: Db, userIds: number[]): Promise<Map<number, number[]>> {
  if (userIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('user_group_members')
    .select(['user_id', 'user_group_id'])
    .where('user_id', 'in', userIds)
    .orderBy('user_group_id')
    .execute();
  return idsByOwner(
    userIds,
    rows,
    (r) => r.user_id,
    (r) => r.user_group_id,
  );
}
