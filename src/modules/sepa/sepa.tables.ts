import type { Generated } from 'kysely';

export interface SepaMandateTable {
  id: Generated<number>;
  account_id: number;
  client_id: number;
  reference: string;
  signed_on: string;
  iban: string;
  bic: string | null;
  /** CORE or B2B. */
  scheme: string;
  /** first (no collection yet: FRST) or recurring (RCUR). */
  sequence: string;
  /** active or revoked. */
  status: string;
  revoked_at: string | null;
  /** The account holder as the mandate names them; null: the client's name (migration 9994). */
  debtor_name: string | null;
  /** An amendment the debtor's bank has not seen yet: the reference before it, else null. */
  original_reference: string | null;
  /** The IBAN before an amendment, until the next collection reports it. */
  original_iban: string | null;
  /** `SMNDA` when the amendment moved the debtor to another bank, else null. */
  original_debtor_agent: string | null;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

export interface SepaRunTable {
  id: Generated<number>;
  account_id: number;
  /** credit_transfer or direct_debit. */
  kind: string;
  /** pain.001.001.09, pain.001.001.03, pain.008.001.08. */
  version: string;
  payment_account_id: number;
  /** The execution date (credit transfers) or the collection date (direct debits). */
  requested_date: string;
  message_id: string;
  number_of_transactions: number;
  /** Cents. */
  control_sum: number | string;
  /** The XML as generated: downloads give these bytes. */
  file: string;
  created_at: Generated<string>;
}

export interface SepaRunItemTable {
  id: Generated<number>;
  account_id: number;
  run_id: number;
  incoming_invoice_id: number | null;
  outgoing_invoice_id: number | null;
  mandate_id: number | null;
  /** FRST or RCUR (direct debits). */
  sequence_type: string | null;
  /** Cents. */
  amount: number | string;
  /** Unique within the account: the bank statement confirms the item by it. */
  end_to_end_id: string;
  counterparty_name: string;
  counterparty_iban: string;
  counterparty_bic: string | null;
  remittance: string;
  /** in_transit, confirmed, returned. */
  status: string;
  /** The bank line that confirmed it. */
  bank_transaction_id: number | null;
}

declare module '../../db/schema.js' {
  interface Database {
    sepa_mandates: SepaMandateTable;
    sepa_runs: SepaRunTable;
    sepa_run_items: SepaRunItemTable;
  }
}
