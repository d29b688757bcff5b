import type { Db } from '../../db/index.js';

/**
 * Read model of the records an offer is written for (the clients, contacts and projects
 * modules' tables): whether each is of the account. Those modules have no front-door check
 * for it, and offers only read it here, within the account.
 */
const exists = async (db: Db, table: 'clients' | 'contacts' | 'projects', accountId: number, id: number) =>
  (await db
    .selectFrom(table)
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst()) !== undefined;

export const clientInAccount = (db: Db, accountId: number, id: number) =>
  exists(db, 'clients', accountId, id);
export const contactInAccount = (db: Db, accountId: number, id: number) =>
  exists(db, 'contacts', accountId, id);
export const projectInAccount = (db: Db, accountId: number, id: number) =>
  exists(db, 'projects', accountId, id);
