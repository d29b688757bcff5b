import type { Generated } from 'kysely';
import type { PartyColumns } from '../../shared/party.js';

export interface CompanyTable extends PartyColumns {
  id: Generated<number>;
  account_id: number;
  name: string;
  external_id: string | null;
  notes: string | null;
  /** JSON object of custom field values. */
  custom_fields: Generated<string>;
  /** Case-folded name, for the contacts search by company name. */
  search_name: Generated<string>;
  /** Case-folded name and email, for `?q=` on companies. */
  search_text: Generated<string>;
  archived_at: string | null;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

declare module '../../db/schema.js' {
  interface Database {
    companies: CompanyTable;
  }
}
