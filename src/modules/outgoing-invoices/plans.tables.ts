import type { Generated } from 'kysely';

/**
 * What the scheduler did for one period of a recurring plan (migration 2026_12_07_980),
 * unique per master and period: the database's record that the period is made and sent once.
 */
export interface PlanRunTable {
  id: Generated<number>;
  account_id: number;
  master_id: number;
  period_start: string;
  invoice_id: number | null;
  /** generated | pending_send | queued | booked | failed | skipped (plans.domain.ts). */
  state: string;
  mail_message_id: number | null;
  reason: string | null;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

declare module '../../db/schema.js' {
  interface Database {
    plan_runs: PlanRunTable;
  }
}
