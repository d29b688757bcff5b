import type { Db } from '../../db/index.js';

/**
 * Read model of the project import: an existing client named in an import file by its
 * shortcode. It reads the clients table directly because the clients module has no front-door
 * function for this lookup yet (see issue 17: to be replaced by one in clients.public.ts).
 */
export async function clientIdByShortcode(db: Db, accountId: number, shortcode: string) {
  const row = await db
    .selectFrom('clients')
    .select('id')
    .where('account_id', '=', accountId)
    .where('shortcode', '=', shortcode)
    .executeTakeFirst();
  return row?.id;
}
