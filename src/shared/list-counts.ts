import type { Kysely } from 'kysely';
import { prepared } from '../db/prepared.js';
import type { Database } from '../db/schema.js';

/**
 * Exact row counts per account and resource, kept by the triggers of migration
 * 2026_11_23_100 inside every writing transaction (so exact with several processes writing):
 * `total` is what a list with `archived=true` (`deleted=true`) shows, `active` what the
 * default list shows. A list filtered by anything else counts its rows.
 *
 * A count is the sum of its shards (migration 2026_11_24_100): on PostgreSQL each session
 * adds to a shard of its own, so concurrent creates of one account do not wait for each
 * other's row lock until COMMIT; a shard may be negative, the sum is exact.
 */
export interface ListCountTable {
  account_id: number;
  resource: string;
  shard: number;
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
    .select((eb) => [
      eb.fn.sum<number | string | null>('total').as('total'),
      eb.fn.sum<number | string | null>('active').as('active'),
    ])
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
    // One row, whose sums are null when the account has no counters yet.
    const row = (await read(db, accountId, resource))[0];
    return Number((all ? row?.total : row?.active) ?? 0);
  };
}
