import type { Generated } from 'kysely';

export interface CustomFieldDefinitionTable {
  id: Generated<number>;
  account_id: number;
  /** The kind of record the field applies to: project, task, contact, company. */
  entity: string;
  key: string;
  label: string;
  type: string;
  /** JSON array of the allowed values of a `select` field. */
  options: Generated<string>;
  required: Generated<number>;
  position: Generated<number>;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

declare module '../../db/schema.js' {
  interface Database {
    custom_field_definitions: CustomFieldDefinitionTable;
  }
}
