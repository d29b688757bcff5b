import type { Generated } from 'kysely';

/** One written row of a resource table (migration 2026_11_23_300_change_log: triggers). */
export interface ChangeLogTable {
  id: Generated<number>;
  /** PostgreSQL: the writing transaction (xid8, read as a decimal string); SQLite: 0. */
  xid: Generated<string | number>;
  account_id: number;
  resource: string;
  resource_id: number;
  action: string;
  /** Set for kinds only their owning integration may see (webhooks). */
  integration_id: number | null;
  changed_at: Generated<string>;
}

/** Per account, the last feed position pruned (migration 2026_12_07_992_change_feed_window). */
export interface ChangeLogHorizonTable {
  account_id: number;
  /** PostgreSQL: the pruned entry's transaction id as a decimal string; SQLite: '0'. */
  xid: string;
  id: number;
  pruned_at: string;
}

declare module '../../db/schema.js' {
  interface Database {
    change_log: ChangeLogTable;
    change_log_horizons: ChangeLogHorizonTable;
  }
}
