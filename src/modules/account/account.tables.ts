import type { Generated } from 'kysely';

/** A company logo of an account, by the hash of its bytes (migration 2026_11_23_201). */
export interface AccountLogoTable {
  account_id: number;
  sha256: string;
  content_type: string;
  byte_size: number;
  data: Buffer;
  created_at: Generated<string>;
}

declare module '../../db/schema.js' {
  interface Database {
    account_logos: AccountLogoTable;
  }
}
