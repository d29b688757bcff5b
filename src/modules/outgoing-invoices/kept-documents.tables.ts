import type { Generated } from 'kysely';

/** A booked document's bytes as first rendered (migration 2026_12_07_994). */
export interface KeptDocumentTable {
  account_id: number;
  /** outgoing_invoice | dunning_letter */
  kind: string;
  document_id: number;
  /** pdf | cii | ubl */
  format: string;
  filename: string;
  content_type: string;
  sha256: string;
  data: Buffer;
  created_at: Generated<string>;
}

declare module '../../db/schema.js' {
  interface Database {
    kept_documents: KeptDocumentTable;
  }
}
