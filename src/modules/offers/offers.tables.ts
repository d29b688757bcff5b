import type { Generated } from 'kysely';
import type { DocumentItemColumns } from '../outgoing-invoices/outgoing-invoices.public.js';

export interface OfferTable {
  id: Generated<number>;
  account_id: number;
  offer_number: string | null;
  status: Generated<string>;
  client_id: number | null;
  contact_id: number | null;
  project_id: number | null;
  title: string | null;
  date: string | null;
  valid_until: string | null;
  currency: string;
  intro_text: string | null;
  closing_text: string | null;
  /** The invoice made from this offer (POST /offers/{id}/invoice); freed when it is deleted. */
  invoice_id: Generated<number | null>;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

export interface OfferItemTable extends DocumentItemColumns {
  offer_id: number;
}

declare module '../../db/schema.js' {
  interface Database {
    offers: OfferTable;
    offer_items: OfferItemTable;
  }
}
