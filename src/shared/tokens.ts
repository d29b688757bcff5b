import { hash, randomBytes } from 'node:crypto';

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
