import type { Generated } from 'kysely';

/** A payment made (`payment`) or a credit offset against an invoice (`credit`). */
export interface IncomingPaymentTable {
  id: Generated<number>;
  account_id: number;
  type: string;
  /** Minor units (cents). */
  amount: number;
  date: string;
  payment_account_id: number | null;
  reference: string | null;
  created_at: Generated<string>;
}

export interface IncomingPaymentAllocationTable {
  id: Generated<number>;
  account_id: number;
  incoming_payment_id: number;
  incoming_invoice_id: number;
  amount: number;
}

declare module '../../db/schema.js' {
  interface Database {
    incoming_payments: IncomingPaymentTable;
    incoming_payment_allocations: IncomingPaymentAllocationTable;
  }
}
