import type { Generated } from 'kysely';

export interface SupplierTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  street: string | null;
  zip: string | null;
  city: string | null;
  country_code: string | null;
  vat_id: string | null;
  tax_number: string | null;
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
