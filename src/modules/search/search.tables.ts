/** One searchable record (migration 2026_12_07_997): written only by triggers on its own table. */
export interface SearchDocTable {
  id: number;
  account_id: number;
  kind: string;
  ref_id: number;
  title: string;
  body: string;
  /** title and body with umlauts spelled out (ü → ue), so that "Mueller" finds "Müller". */
  alt: string;
}

declare module '../../db/schema.js' {
  interface Database {
    search_docs: SearchDocTable;
  }
}
