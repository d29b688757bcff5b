import type { Generated } from 'kysely';

export interface EffortTable {
  id: Generated<number>;
  account_id: number;
  user_id: number;
  project_id: number | null;
  task_id: number | null;
  date: string;
  duration_minutes: number;
  billable: Generated<number>;
  type: Generated<string>;
  description: string | null;
  /** Cents an hour; overrides every other rate of the rate order. */
  hourly_rate: Generated<number | null>;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

declare module '../../db/schema.js' {
  interface Database {
    efforts: EffortTable;
  }
}
