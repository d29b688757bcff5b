import type { Db } from '../../db/index.js';

/**
 * Read model of the client a project is written for (the clients module's table): whether it
 * is of the account. Clients have no front-door function for this check, and projects only
 * read it here, within the account.
 */
export const clientInAccount = async (db: Db, accountId: number, id: number): Promise<boolean> =>
  (await db
    .selectFrom('clients')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst()) !== undefined;
