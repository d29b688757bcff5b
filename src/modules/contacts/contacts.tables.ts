import type { Generated } from 'kysely';

export interface ContactTable {
  id: Generated<number>;
  account_id: number;
  company_id: number | null;
  external_id: string | null;
  salutation: string | null;
  title: string | null;
  first_name: string | null;
  last_name: string;
  email: string | null;
  phone: string | null;
  mobile: string | null;
  position: string | null;
  department: string | null;
  street: string | null;
  zip: string | null;
  city: string | null;
  country_code: string | null;
  notes: string | null;
  /** JSON object of custom field values. */
  custom_fields: Generated<string>;
  /** Case-folded "first last" and email, for `?q=`. */
  search_text: Generated<string>;
  archived_at: string | null;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

declare module '../../db/schema.js' {
  interface Database {
    contacts: ContactTable;
  }
}
