import type { Generated } from 'kysely';
import type { PartyColumns } from '../../shared/party.js';

export interface ClientTable extends PartyColumns {
  id: Generated<number>;
  account_id: number;
  name: string;
  shortcode: string | null;
  external_id: string | null;
  language: string | null;
  /** BT-10 of e-invoices (Leitweg-ID); an invoice's own value wins. */
  buyer_reference: string | null;
  /** Where invoices are e-mailed (issue 38); else the contact's or the client's e-mail. */
  invoice_email: string | null;
  /** What an e-mailed invoice attaches: zugferd (default), xrechnung_cii, xrechnung_ubl, pdf_and_xrechnung. */
  einvoice_format: Generated<string>;
  /** 1: a consumer (§ 13 BGB): default interest is base rate + 5 points, no lump sum. */
  is_consumer: Generated<number>;
  /** 1: the dunning run leaves the client's invoices alone. */
  dunning_blocked: Generated<number>;
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
