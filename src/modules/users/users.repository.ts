import type { Selectable } from 'kysely';
import type { UserTable } from '../../db/core.tables.js';
import type { Db } from '../../db/index.js';
import { findOwned } from '../../shared/owned.js';
import { paginate, type Sortable } from '../../shared/paging.js';
import { toIso } from '../../shared/time.js';
import type { UserListQuery } from './users.schemas.js';

export type UserRow = Selectable<UserTable>;

export const findUser = (db: Db, accountId: number, id: number): Promise<UserRow | undefined> =>
  findOwned(db, 'users', accountId, id);

const USER_SORTABLE: Sortable = { last_name: {}, first_name: {}, email: {} };

export function listUsers(db: Db, accountId: number, q: UserListQuery) {
  let qb = db.selectFrom('users').selectAll().where('account_id', '=', accountId);
  if (q.active !== undefined) qb = qb.where('active', '=', q.active ? 1 : 0);
  if (q.email !== undefined) qb = qb.where('email', '=', q.email.toLowerCase());
  if (q.updated_since) qb = qb.where('updated_at', '>=', toIso(q.updated_since));
  return paginate(qb, q, { sortable: USER_SORTABLE });
}

/** Users of the account with these ids, ordered by id (ids of other accounts are left out). */
export function findUsers(db: Db, accountId: number, ids: readonly number[]): Promise<UserRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('users')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', 'in', [...new Set(ids)])
    .orderBy('id')
    .execute();
}

/** The id of the account's user with this e-mail (stored lower-case). */
export async function userIdByEmail(db: Db, accountId: number, email: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('users')
    .select('id')
    .where('account_id', '=', accountId)
    .where('email', '=', email.toLowerCase())
    .executeTakeFirst();
  return row?.id;
}
