import type { Generated } from 'kysely';

export interface PaymentAccountTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  /** bank, cash, paypal, other. */
  type: Generated<string>;
  iban: string | null;
  bic: string | null;
  bank_name: string | null;
  currency: string;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

export interface PaymentTable {
  id: Generated<number>;
  account_id: number;
  /** outgoing_invoice (money received) or outgoing_invoice_credit (a credit settling an invoice). */
  type: string;
  invoice_id: number;
  credit_id: number | null;
  payment_account_id: number | null;
  /** Cents, always positive: what was settled on the invoice. */
  amount: number;
  currency: string;
  date: string;
  description: string | null;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

declare module '../../db/schema.js' {
  interface Database {
    payment_accounts: PaymentAccountTable;
    payments: PaymentTable;
  }
}
