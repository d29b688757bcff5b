import type { Generated } from 'kysely';

export interface BankStatementTable {
  id: Generated<number>;
  account_id: number;
  payment_account_id: number;
  /** camt.053, camt.052, camt.054, mt940, mt942. */
  format: string;
  /** The statement's id as the bank wrote it. */
  statement_ref: string | null;
  file_name: string | null;
  file_sha256: string;
  currency: string | null;
  period_start: string | null;
  period_end: string | null;
  /** Signed cents. */
  opening_balance: number | string | null;
  closing_balance: number | string | null;
  entries_new: number;
  entries_known: number;
  entries_skipped: number;
  matched: number;
  /** JSON array of warning codes. */
  warnings: string;
  created_at: Generated<string>;
}

export interface BankTransactionTable {
  id: Generated<number>;
  account_id: number;
  payment_account_id: number;
  /** The statement that brought the entry first. */
  statement_id: number;
  /** Unique per payment account: see statement.domain.ts entryIdentities. */
  identity: string;
  booking_date: string;
  value_date: string | null;
  /** Signed cents (money in positive). */
  amount: number | string;
  currency: string;
  counterparty_name: string | null;
  counterparty_iban: string | null;
  counterparty_bic: string | null;
  remittance: string | null;
  creditor_reference: string | null;
  end_to_end_id: string | null;
  mandate_id: string | null;
  bank_reference: string | null;
  booking_text: string | null;
  /** R-transactions of our direct debits: the bank's reason code (AC04, MS02 …), RVSL without one. */
  return_reason: Generated<string | null>;
  /** unmatched, matched, ignored. */
  status: Generated<string>;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

export interface BankMatchTable {
  id: Generated<number>;
  account_id: number;
  transaction_id: number;
  /** The payment in the ledger this match recorded (payments.id). */
  payment_id: number;
  invoice_id: number;
  /** Cents. */
  amount: number | string;
  /** auto or manual. */
  origin: string;
  /** outgoing (money received for an outgoing invoice) or incoming (a confirmed SEPA credit transfer). */
  invoice_kind: Generated<string>;
  created_at: Generated<string>;
}

export interface BankCsvProfileTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  delimiter: string;
  /** "," or ".". */
  decimal_separator: string;
  date_format: string;
  /** utf-8 or iso-8859-1. */
  encoding: string;
  header_rows: number;
  /** JSON of the column numbers (csv.domain.ts CsvColumns). */
  columns: string;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

declare module '../../db/schema.js' {
  interface Database {
    bank_statements: BankStatementTable;
    bank_transactions: BankTransactionTable;
    bank_matches: BankMatchTable;
    bank_csv_profiles: BankCsvProfileTable;
  }
}
