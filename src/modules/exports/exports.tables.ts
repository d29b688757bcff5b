import type { Generated } from 'kysely';

/** A DATEV export, its ZIP kept byte for byte (migration 2026_12_07_600). */
export interface DatevExportTable {
  id: Generated<number>;
  account_id: number;
  date_from: string;
  date_to: string;
  /** 1: the export locked the months it covers (Festschreibung). */
  locked: Generated<number>;
  file_name: string;
  sha256: string;
  byte_size: number;
  data: Buffer;
  /** JSON: { bookings, debtors, creditors }. */
  counts: string;
  created_by: number | null;
  created_at: Generated<string>;
}

/** A month locked for good (YYYY-MM); there is no unlock. */
export interface AccountingPeriodLockTable {
  account_id: number;
  period: string;
  locked_by: number | null;
  export_id: number | null;
  locked_at: Generated<string>;
}

/** The DATEV debtor (client) or creditor (supplier) account a party was given. */
export interface DatevPersonalAccountTable {
  account_id: number;
  kind: string;
  party_id: number;
  account_length: number;
  number: number;
}

declare module '../../db/schema.js' {
  interface Database {
    datev_exports: DatevExportTable;
    accounting_period_locks: AccountingPeriodLockTable;
    datev_personal_accounts: DatevPersonalAccountTable;
  }
}
