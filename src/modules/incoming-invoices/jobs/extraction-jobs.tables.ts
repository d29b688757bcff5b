import type { Generated } from 'kysely';

export type ExtractionJobStatus = 'pending' | 'done' | 'failed';

export interface ExtractionJobTable {
  id: Generated<number>;
  account_id: number;
  incoming_invoice_id: number;
  status: Generated<ExtractionJobStatus>;
  /** Attempts begun (counted when claimed, so a worker killed mid-job counts too). */
  attempts: Generated<number>;
  run_after: Generated<string>;
  lease_until: string | null;
  lease_token: string | null;
  last_error: string | null;
  created_at: Generated<string>;
  updated_at: Generated<string>;
  finished_at: string | null;
}

declare module '../../../db/schema.js' {
  interface Database {
    extraction_jobs: ExtractionJobTable;
  }
}
