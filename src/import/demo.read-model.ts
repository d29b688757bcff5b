import type { Db } from '../db/index.js';

/** The account's first admin (by id): the demo seeding gives them a password. */
export const firstAdminOf = (db: Db, accountId: number) =>
  db
    .selectFrom('users')
    .select(['id', 'email'])
    .where('account_id', '=', accountId)
    .where('role', '=', 'admin')
    .orderBy('id')
    .executeTakeFirst();
