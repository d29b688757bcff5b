import type { Generated } from 'kysely';
import type { AddressColumns } from '../../shared/party.js';

export interface SupplierTable extends AddressColumns {
  id: Generated<number>;
  account_id: number;
  name: string;
  iban: string | null;
  bic: string | null;
  email: string | null;
  chart_of_account_id: number | null;
  payment_term_days: number | null;
  notes: string | null;
  external_id: string | null;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

declare module '../../db/schema.js' {
  interface Database {
    suppliers: SupplierTable;
  }
}
