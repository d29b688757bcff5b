import type { Generated } from 'kysely';

/** What oidc-provider stores (migration 930): one JSON payload per (model, id). */
export interface OAuthStoreTable {
  model: string;
  id: string;
  payload: string;
  grant_id: string | null;
  uid: string | null;
  client_id: string | null;
  user_id: number | null;
  expires_at: string | null;
  consumed_at: string | null;
  created_at: Generated<string>;
}

declare module '../../db/schema.js' {
  interface Database {
    oauth_store: OAuthStoreTable;
  }
}
