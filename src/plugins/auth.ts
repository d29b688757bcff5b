import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { API_PREFIX } from '../config.js';
import type { Db } from '../db/index.js';
import { prepared } from '../db/prepared.js';
import { AppError } from '../shared/errors.js';
import { nowIso } from '../shared/time.js';

export interface AuthContext {
  accountId: number;
  userId: number;
  integrationId: number;
  tokenId: number;
  scopes: ReadonlySet<string>;
}

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');
export const newToken = (prefix: string): string => `${prefix}_${randomBytes(32).toString('base64url')}`;

export const hasScope = (auth: AuthContext, scope: string): boolean => auth.scopes.has(scope);

/** Any scope starting with `prefix` (the specification's `user:` / `client:*` widening). */
export const hasScopePrefix = (auth: AuthContext, prefix: string): boolean => {
  for (const s of auth.scopes) if (s.startsWith(prefix)) return true;
  return false;
};

export const parseScopes = (s: string): string[] => s.split(/[\s,]+/).filter(Boolean);

function unauthorized(detail: string, code: 'unauthorized' | 'invalid_token') {
  const error = code === 'invalid_token' ? 'error="invalid_token", ' : '';
  return new AppError(code, detail, {
    headers: { 'www-authenticate': `Bearer realm="api", ${error}error_description="${detail}"` },
  });
}

// Runs on every request: built once (see db/prepared.ts).
const tokenLookup = prepared(1, (db: Db, tokenHash: string) =>
  db
    .selectFrom('access_tokens as t')
    .innerJoin('integrations as i', 'i.id', 't.integration_id')
    .innerJoin('users as u', 'u.id', 'i.user_id')
    .select([
      't.id',
      't.scopes',
      't.expires_at',
      't.revoked_at',
      'i.id as integration_id',
      'i.account_id',
      'i.user_id',
      'i.revoked_at as integration_revoked_at',
      'u.active',
    ])
    .where('t.token_hash', '=', tokenHash),
);

async function authenticate(app: FastifyInstance, req: FastifyRequest): Promise<AuthContext> {
  const header = req.headers.authorization;
  if (!header) throw unauthorized('Missing bearer token', 'unauthorized');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthorized('Authorization header must be "Bearer <token>"', 'unauthorized');
  const [row] = await tokenLookup(app.db, hashToken(match[1]!));
  if (!row || row.revoked_at || row.integration_revoked_at || !row.active) {
    throw unauthorized('Token is unknown or revoked', 'invalid_token');
  }
  if (row.expires_at && row.expires_at <= nowIso()) throw unauthorized('Token has expired', 'invalid_token');
  return {
    accountId: row.account_id,
    userId: row.user_id,
    integrationId: row.integration_id,
    tokenId: row.id,
    scopes: new Set(parseScopes(row.scopes)),
  };
}

/**
 * Authenticates every non-public route and enforces its declared scopes in `onRequest`,
 * i.e. before the body is read or validated: a caller without the scope learns nothing
 * about what a valid body would be.
 */
export const authPlugin = fp(async (app: FastifyInstance) => {
  app.decorateRequest('auth', null as unknown as AuthContext);
  app.addHook('onRequest', async (req) => {
    const config = req.routeOptions.config;
    // Only the API is guarded; /docs and unknown routes (404) need no token.
    if (config.public || !req.routeOptions.url?.startsWith(API_PREFIX)) return;
    req.auth = await authenticate(app, req);
    const required = config.scopes ?? [];
    const missing = required.filter((s) => !req.auth.scopes.has(s));
    if (missing.length > 0) {
      throw new AppError('insufficient_scope', `This operation needs the scope(s): ${required.join(', ')}`, {
        extra: { required_scopes: [...required] },
        headers: {
          'www-authenticate': `Bearer error="insufficient_scope", scope="${required.join(' ')}"`,
        },
      });
    }
  });
});
