import type { Generated } from 'kysely';

/** Timestamp column with a database default: optional on insert. */
export type CreatedAt = Generated<string>;

export interface AccountTable {
  id: Generated<number>;
  name: string;
  currency: Generated<string>;
  country_code: string | null;
  /** JSON: per-account settings such as invoice number formats. */
  settings: Generated<string>;
  created_at: CreatedAt;
}

export interface UserTable {
  id: Generated<number>;
  account_id: number;
  email: string;
  first_name: string;
  last_name: string;
  role: Generated<string>;
  position: string | null;
  phone: string | null;
  language: Generated<string>;
  timezone: Generated<string>;
  active: Generated<number>;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

/** A user's sale rate (default for the projects they work on) and internal cost, cents an hour. */
export interface UserRateTable {
  user_id: number;
  account_id: number;
  hourly_rate: number | null;
  cost_rate: number | null;
  updated_at: Generated<string>;
}

export interface UserGroupTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  description: string | null;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface UserGroupMemberTable {
  user_group_id: number;
  user_id: number;
}

export interface IntegrationTable {
  id: Generated<number>;
  account_id: number;
  user_id: number;
  name: string;
  /** Space-separated granted scopes. */
  scopes: string;
  client_id: string;
  client_secret_hash: string;
  created_at: CreatedAt;
  revoked_at: string | null;
  /** OAuth (migration 930): space-separated redirect URIs, matched exactly. */
  redirect_uris: Generated<string>;
  client_type: Generated<'confidential' | 'public'>;
  /** Shown on the consent page; `name` when null. */
  display_name: string | null;
  homepage: string | null;
}

export interface AccessTokenTable {
  id: Generated<number>;
  integration_id: number;
  token_hash: string;
  /** Space-separated scopes this token carries (a subset of the integration's). */
  scopes: string;
  expires_at: string | null;
  revoked_at: string | null;
  created_at: CreatedAt;
  /** The user who consented (authorization code flow); the integration's user when null. */
  user_id: number | null;
  /** The OAuth grant it was issued under: revoking the grant revokes it. */
  grant_id: string | null;
}

/** One row: moves whenever a stored token check could change (see migration 700). */
export interface AuthEpochTable {
  id: number;
  value: number;
}

/** A key's request count in one fixed window (see plugins/rate-limit.store.ts). */
export interface RateLimitWindowTable {
  key: string;
  /** Epoch milliseconds where the window starts. */
  window_start: number;
  /** Requests handed out to processes so far. */
  used: number;
  /** What the last lease received. */
  granted: number;
}

export interface IdempotencyKeyTable {
  id: Generated<number>;
  integration_id: number;
  key: string;
  request_hash: string;
  status_code: number | null;
  response_body: string | null;
  response_headers: string | null;
  created_at: string;
  /** Until when the request holding the key has it (migration 820); null: free to take over. */
  locked_until: string | null;
  /** Names the request holding the key. */
  claim: string | null;
}

export interface EventTable {
  id: Generated<number>;
  account_id: number;
  kind: string;
  resource_type: string;
  resource_id: number;
  /** JSON: the resource as the API returns it at the time of the event. */
  payload: string;
  integration_id: number | null;
  occurred_at: string;
}

declare module './schema.js' {
  interface Database {
    accounts: AccountTable;
    users: UserTable;
    user_rates: UserRateTable;
    user_groups: UserGroupTable;
    user_group_members: UserGroupMemberTable;
    integrations: IntegrationTable;
    access_tokens: AccessTokenTable;
    auth_epoch: AuthEpochTable;
    rate_limit_windows: RateLimitWindowTable;
    idempotency_keys: IdempotencyKeyTable;
    events: EventTable;
  }
}
