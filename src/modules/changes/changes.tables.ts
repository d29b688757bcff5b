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

declare module '../../db/schema.js' {
  interface Database {
    change_log: ChangeLogTable;
  }
}
