import type { Db } from '../../db/index.js';
import '../../web/web.tables.js';

/** The most users the console lists at once; an account beyond that pages (see listTeam). */
export const TEAM_PAGE = 200;

/** The account's users for the console, with whether each has set a password and has an open link. */
export function teamPage(db: Db, accountId: number, offset: number, now: string) {
  return db
    .selectFrom('users as u')
    .leftJoin('user_passwords as p', 'p.user_id', 'u.id')
    .select((eb) => [
      'u.id',
      'u.email',
      'u.first_name',
      'u.last_name',
      'u.role',
      'u.active',
      'u.created_at',
      eb('p.user_id', 'is not', null).as('has_password'),
      eb
        .exists(
          eb
            .selectFrom('user_invites as i')
            .select('i.id')
            .whereRef('i.user_id', '=', 'u.id')
            .where('i.used_at', 'is', null)
            .where('i.expires_at', '>', now),
        )
        .as('invited'),
    ])
    .where('u.account_id', '=', accountId)
    .orderBy('u.id')
    .limit(TEAM_PAGE + 1)
    .offset(offset)
    .execute();
}

export function findMember(db: Db, accountId: number, id: number) {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'role', 'active'])
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Active admins of the account other than `exceptId`: an account must keep at least one. */
export async function otherActiveAdmins(db: Db, accountId: number, exceptId: number): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .where('role', '=', 'admin')
    .where('active', '=', 1)
    .where('id', '!=', exceptId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function updateMember(
  db: Db,
  accountId: number,
  id: number,
  values: { role?: 'admin' | 'member'; active?: 0 | 1 },
  at: string,
): Promise<void> {
  await db
    .updateTable('users')
    .set({ ...values, updated_at: at })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .execute();
}

export function passwordHashOf(db: Db, userId: number) {
  return db
    .selectFrom('user_passwords')
    .select('password_hash')
    .where('user_id', '=', userId)
    .executeTakeFirst();
}
