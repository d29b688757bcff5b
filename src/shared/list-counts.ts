import type { Kysely } from 'kysely';
import { prepared } from '../db/prepared.js';
import type { Database } from '../db/schema.js';

/**
 * Exact row counts per account and resource, kept by the triggers of migration
 * 2026_11_23_100 inside every writing transaction (so exact with several processes writing):
 * `total` is what a list with `archived=true` (`deleted=true`) shows, `active` what the
 * default list shows. A list filtered by anything else counts its rows.
 */
export interface ListCountTable {
  account_id: number;
  resource: string;
  total: number;
  active: number;
}

declare module '../db/schema.js' {
  interface Database {
    list_counts: ListCountTable;
  }
}

export type CountedResource =
  | 'clients'
  | 'contacts'
  | 'companies'
  | 'projects'
  | 'tasks'
  | 'portfolios'
  | 'suppliers'
  | 'offers'
  | 'efforts'
  | 'outgoing_invoices';

const read = prepared(2, (db: Kysely<Database>, accountId: number, resource: string) =>
  db
    .selectFrom('list_counts')
    .select(['total', 'active'])
    .where('account_id', '=', accountId)
    .where('resource', '=', resource),
);

/** The kept count of an account's rows: `all` of them, or the default list's. */
export function keptTotal(
  db: Kysely<Database>,
  accountId: number,
  resource: CountedResource,
  all: boolean,
): () => Promise<number> {
  return async () => {
    const row = (await read(db, accountId, resource))[0];
    return row ? Number(all ? row.total : row.active) : 0;
  };
}
