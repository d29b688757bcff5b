import type { Generated } from 'kysely';

export interface ChartOfAccountTable {
  id: Generated<number>;
  account_id: number;
  number: string;
  name: string;
  type: string;
  tax_rate: string | null;
  active: Generated<number>;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

declare module '../../db/schema.js' {
  interface Database {
    chart_of_accounts: ChartOfAccountTable;
  }
}
