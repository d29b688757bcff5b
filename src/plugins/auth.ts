import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { API_PREFIX } from '../config.js';
import { settleOutside } from '../shared/callbacks.js';
import { AppError } from '../shared/errors.js';
import { nowIso } from '../shared/time.js';
import { type AuthContext, hashToken, parseScopes, type TokenSource } from '../shared/tokens.js';
import { addRouteHook } from './route-hooks.js';
import { TokenCache, type TokenRow } from './token-cache.js';

// Re-exported: what a token grants lives in shared/tokens.ts (services use it from there).
export {
  type AuthContext,
  hashToken,
  hasScope,
  hasScopePrefix,
  newToken,
  parseScopes,
} from '../shared/tokens.js';

function unauthorized(detail: string, code: 'unauthorized' | 'invalid_token') {
  const error = code === 'invalid_token' ? 'error="invalid_token", ' : '';
  return new AppError(code, detail, {
    headers: { 'www-authenticate': `Bearer realm="api", ${error}error_description="${detail}"` },
  });
}

// A kept token row answers the same context each time (contexts are read-only).
const contexts = new WeakMap<TokenRow, AuthContext>();

/**
 * What becomes of a request refused here (401, or 403 for a missing scope): by default it
 * fails with `err`; the rate limiter (rate-limit.ts) counts it first, per client address or
 * per integration, so that refusals cannot be sent in bulk for free.
 */
export type RefusalHook = (
  req: FastifyRequest,
  reply: FastifyReply,
  err: Error,
  done: (err?: Error) => void,
) => void;

declare module 'fastify' {
  interface FastifyInstance {
    authRefusal?: RefusalHook;
  }
}

const passOn: RefusalHook = (_req, _reply, err, done) => done(err);

const usable = (row: TokenRow) => !row.revoked_at && !row.integration_revoked_at && Boolean(row.active);

function bearerHash(req: FastifyRequest): string {
  const header = req.headers.authorization;
  if (!header) throw unauthorized('Missing bearer token', 'unauthorized');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthorized('Authorization header must be "Bearer <token>"', 'unauthorized');
  return hashToken(match[1]!);
}

function contextOf(row: TokenRow | undefined): AuthContext {
  if (!row || !usable(row)) throw unauthorized('Token is unknown or revoked', 'invalid_token');
  if (row.expires_at && row.expires_at <= nowIso()) throw unauthorized('Token has expired', 'invalid_token');
  let auth = contexts.get(row);
  if (!auth) {
    auth = Object.freeze({
      accountId: row.account_id,
      userId: row.user_id,
      integrationId: row.integration_id,
      tokenId: row.id,
      scopes: new Set(parseScopes(row.scopes)),
    });
    contexts.set(row, auth);
  }
  return auth;
}

/**
 * Authenticates every non-public API route and enforces its declared scopes in `onRequest`,
 * i.e. before the body is read or validated: a caller without the scope learns nothing
 * about what a valid body would be. The check is attached to each route when it is
 * declared, with its scopes at hand: /docs, public routes and unknown URLs (404) get none.
 */
export interface AuthOptions {
  /** Where tokens are read (the integration module's, see app.ts). */
  tokens: TokenSource;
}

export const authPlugin = fp(async (app: FastifyInstance, opts: AuthOptions) => {
  app.decorateRequest('auth', null as unknown as AuthContext);
  app.decorateRequest('dataVersion', undefined);
  const tokens = new TokenCache(10_000, opts.tokens);
  app.addHook('onRoute', (route) => {
    if (route.config?.public || !route.url.startsWith(API_PREFIX)) return;
    const required = route.config?.scopes ?? [];
    const refusal = () =>
      new AppError('insufficient_scope', `This operation needs the scope(s): ${required.join(', ')}`, {
        extra: { required_scopes: [...required] },
        headers: { 'www-authenticate': `Bearer error="insufficient_scope", scope="${required.join(' ')}"` },
      });
    const admit = (req: FastifyRequest, auth: AuthContext) => {
      req.auth = auth;
      for (const s of required) if (!auth.scopes.has(s)) return refusal();
      return undefined;
    };
    const decide = (req: FastifyRequest, row: TokenRow | undefined): Error | undefined => {
      try {
        return admit(req, contextOf(row));
      } catch (err) {
        return err as Error;
      }
    };
    // Routes are declared after every plugin has registered: the hook is known by now.
    const refuse = app.authRefusal ?? passOn;
    // A callback hook: a kept token is decided without a single promise (most requests);
    // otherwise the database is asked.
    const guard: onRequestHookHandler = (req, reply, done) => {
      let hash: string;
      try {
        hash = bearerHash(req);
      } catch (err) {
        return refuse(req, reply, err as Error, done);
      }
      tokens.check(app.db, hash, (err, kept, version) => {
        if (err) return done(err);
        if (kept) {
          req.dataVersion = version;
          const refusal = decide(req, kept);
          return refusal ? refuse(req, reply, refusal, done) : done();
        }
        settleOutside(
          tokens.lookup(app.db, hash, usable),
          (row) => {
            const refusal = decide(req, row);
            return refusal ? refuse(req, reply, refusal, done) : done();
          },
          (e) => done(e),
        );
      });
    };
    // First of the route's own hooks: the rate limit (added after this) counts by integration.
    addRouteHook(route, 'onRequest', guard, 'first');
  });
});
