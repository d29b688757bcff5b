import type { Generated } from 'kysely';

export interface DunningSettingsTable {
  account_id: number;
  /** JSON of the levels (dunning.domain.ts Level[]). */
  levels: string;
  updated_at: Generated<string>;
}

export interface DunningBaseRateTable {
  account_id: number;
  valid_from: string;
  /** Percent, at most two decimals, as text. */
  rate: string;
  updated_at: Generated<string>;
}

export interface DunningNumberCounterTable {
  account_id: number;
  year: number;
  last_value: Generated<number>;
}

export interface DunningLetterTable {
  id: Generated<number>;
  account_id: number;
  number: string;
  invoice_id: number;
  client_id: number | null;
  level: number;
  date: string;
  currency: string;
  language: string;
  /** Cents. */
  open_amount: number;
  fee: number;
  flat_fee: number;
  interest: number;
  total_due: number;
  /** JSON of the interest periods. */
  interest_breakdown: string;
  subject: string;
  body: string;
  delivery: string;
  /** open, sent, cancelled, settled. */
  status: Generated<string>;
  sent_at: string | null;
  cancelled_at: string | null;
  settled_at: string | null;
  charges_invoice_id: number | null;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

declare module '../../db/schema.js' {
  interface Database {
    dunning_settings: DunningSettingsTable;
    dunning_base_rates: DunningBaseRateTable;
    dunning_number_counters: DunningNumberCounterTable;
    dunning_letters: DunningLetterTable;
  }
}

export interface DunningJobTable {
  account_id: number;
  /** The last day the scheduled run finished for the account. */
  last_run_on: string | null;
  lease_until: string | null;
  lease_token: string | null;
  last_error: string | null;
  updated_at: Generated<string>;
}

declare module '../../db/schema.js' {
  interface Database {
    dunning_jobs: DunningJobTable;
  }
}
