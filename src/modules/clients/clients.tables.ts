import type { Generated } from 'kysely';

export interface ClientTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  shortcode: string | null;
  external_id: string | null;
  email: string | null;
  phone: string | null;
  website: string | null;
  street: string | null;
  zip: string | null;
  city: string | null;
  country_code: string | null;
  vat_id: string | null;
  tax_number: string | null;
  language: string | null;
  /** BT-10 of e-invoices (Leitweg-ID); an invoice's own value wins. */
  buyer_reference: string | null;
  currency: string | null;
  payment_term_days: number | null;
  notes: string | null;
  archived_at: string | null;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

declare module '../../db/schema.js' {
  interface Database {
    clients: ClientTable;
  }
}
