import { hash, randomBytes } from 'node:crypto';
import type { Db } from '../db/index.js';

/**
 * Bearer tokens and what they grant, apart from the HTTP plugin that checks them
 * (src/plugins/auth.ts): services issue tokens, hash secrets and read scopes without
 * importing an HTTP plugin.
 */
export interface AuthContext {
  accountId: number;
  userId: number;
  integrationId: number;
  tokenId: number;
  scopes: ReadonlySet<string>;
}

// One-shot hash: it runs on every request, and a Hash object per call costs twice as much.
export const hashToken = (token: string): string => hash('sha256', token, 'hex');
export const newToken = (prefix: string): string => `${prefix}_${randomBytes(32).toString('base64url')}`;

export const parseScopes = (s: string): string[] => s.split(/[\s,]+/).filter(Boolean);

export const hasScope = (auth: AuthContext, scope: string): boolean => auth.scopes.has(scope);

/** Any scope starting with `prefix` (the specification's `user:` / `client:*` widening). */
export const hasScopePrefix = (auth: AuthContext, prefix: string): boolean => {
  for (const s of auth.scopes) if (s.startsWith(prefix)) return true;
  return false;
};

/** A stored token with what deciding on it needs: its integration's and user's state. */
export interface TokenRow {
  id: number;
  scopes: string;
  expires_at: string | null;
  revoked_at: string | null;
  integration_id: number;
  account_id: number;
  user_id: number;
  integration_revoked_at: string | null;
  active: number;
}

/**
 * Where the bearer check reads tokens from. The integration module, which owns the tables,
 * implements it and app.ts hands it to the auth plugin (plugins import no module); unit tests
 * hand in a stand-in.
 */
export interface TokenSource {
  /**
   * The epoch and, read in the same statement where the database has one to read that way
   * (PostgreSQL), the version of all the database's data (db/data-version.ts).
   */
  epoch(db: Db): Promise<{ epoch: number; version?: string }>;
  /**
   * The epoch and the data version without waiting, where the database allows it (SQLite
   * outside a transaction).
   */
  epochNow?(db: Db): { epoch: number; version?: string } | undefined;
  find(db: Db, tokenHash: string): Promise<TokenRow | undefined>;
}
