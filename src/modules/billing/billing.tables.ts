import type { Generated } from 'kysely';

/**
 * An effort on an invoice: at most one row per effort (unique), removed when the invoice is
 * deleted (trigger of migration 2026_12_07_100), so an effort is billed at most once.
 */
export interface InvoiceEffortTable {
  id: Generated<number>;
  account_id: number;
  invoice_id: number;
  effort_id: number;
  /** The position of the invoice line the effort stands on. */
  position: number;
  /** Minutes billed, after rounding. */
  minutes: number;
  /** Cents an hour. */
  hourly_rate: number;
  /** Which level of the rate order gave the rate: effort, task, team, project, user, account. */
  rate_source: string;
  created_at: Generated<string>;
}

declare module '../../db/schema.js' {
  interface Database {
    invoice_efforts: InvoiceEffortTable;
  }
}
