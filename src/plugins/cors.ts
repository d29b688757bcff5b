import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { API_PREFIX } from '../config.js';

const ALLOW_METHODS = 'GET, POST, PUT, PATCH, DELETE';
const ALLOW_HEADERS = 'Authorization, Content-Type, Idempotency-Key, Accept, Accept-Language, X-Request-Id';
// What a browser app must read to page (Link), follow a creation (Location), back off
// (RateLimit*, Retry-After), tell a replay (Idempotent-Replayed), re-authenticate
// (WWW-Authenticate) and name a download (Content-Disposition).
const EXPOSE_HEADERS =
  'Link, Location, RateLimit, RateLimit-Policy, Retry-After, Idempotent-Replayed, WWW-Authenticate, Content-Disposition, X-Request-Id';
const MAX_AGE_SECONDS = '600';

/** The paths a browser app calls: the API and the OAuth token endpoint (PKCE from a page). */
const served = (url: string) =>
  url.startsWith(`${API_PREFIX}/`) || url === API_PREFIX || url.startsWith('/oauth/token');

/**
 * CORS for the origins in CORS_ORIGINS (none by default: then this adds nothing). A preflight
 * from an allowed origin is answered here, before authentication and rate limiting (it carries
 * no token); other origins get no CORS headers at all, so their browsers refuse the answer.
 * Tokens travel in `Authorization`, never in cookies: no `Allow-Credentials`.
 *
 * Hand-written rather than @fastify/cors: that one answers preflights from a route of its own,
 * which the auth hook would first refuse for want of a token.
 */
export const corsPlugin = fp(async (app: FastifyInstance) => {
  const allowed = new Set(app.config.corsOrigins);
  if (allowed.size === 0) return;
  const any = allowed.has('*');
  app.addHook('onRequest', (req, reply, done) => {
    const origin = req.headers.origin;
    if (!origin || !served(req.url) || !(any || allowed.has(origin))) return done();
    reply.header('access-control-allow-origin', any ? '*' : origin);
    if (!any) reply.header('vary', 'Origin');
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
      reply
        .code(204)
        .header('access-control-allow-methods', ALLOW_METHODS)
        .header('access-control-allow-headers', ALLOW_HEADERS)
        .header('access-control-max-age', MAX_AGE_SECONDS)
        .send();
      return;
    }
    reply.header('access-control-expose-headers', EXPOSE_HEADERS);
    done();
  });
});
