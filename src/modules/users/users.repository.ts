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

export const findRates = (db: Db, accountId: number, userId: number) =>
  db
    .selectFrom('user_rates')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('user_id', '=', userId)
    .executeTakeFirst();

/** The rates of several users of an account (those without a row are left out). */
export const ratesOf = (db: Db, accountId: number, userIds: number[]) =>
  userIds.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('user_rates')
        .select(['user_id', 'hourly_rate', 'cost_rate'])
        .where('account_id', '=', accountId)
        .where('user_id', 'in', userIds)
        .execute();

/** Sets a user's rates (one row per user), with the time of the change. */
export async function upsertRates(
  db: Db,
  values: {
    user_id: number;
    account_id: number;
    hourly_rate: number | null;
    cost_rate: number | null;
    updated_at: string;
  },
): Promise<void> {
  await db
    .insertInto('user_rates')
    .values(values)
    .onConflict((oc) =>
      oc.column('user_id').doUpdateSet({
        hourly_rate: values.hourly_rate,
        cost_rate: values.cost_rate,
        updated_at: values.updated_at,
      }),
    )
    .execute();
}

/** Moves a user's updated_at: their rates changed, and the change feed shows the user updated. */
export async function touchUser(db: Db, accountId: number, id: number, now: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ updated_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .execute();
}
