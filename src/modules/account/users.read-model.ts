import type { Db } from '../../db/index.js';

/**
 * Read model of account: the role of a user of the account, read from users' table (read only).
 * One indexed lookup decides whether a profile edit is allowed; a call through users' front
 * door would make account depend on users (which itself reads accounts) for one column.
 */

/** The role of a user of the account, undefined when there is no such (active) user. */
export async function userRole(db: Db, accountId: number, userId: number): Promise<string | undefined> {
  const row = await db
    .selectFrom('users')
    .select('role')
    .where('id', '=', userId)
    .where('account_id', '=', accountId)
    .where('active', '=', 1)
    .executeTakeFirst();
  return row?.role;
}
