import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { API_PREFIX } from '../config.js';
import { AppError } from '../shared/errors.js';
import { SharedWindowStore } from './rate-limit.store.js';

const WINDOW_SECONDS = 60;

/**
 * Per-integration request budget (anonymous callers: per IP), a fixed one-minute window
 * shared by all processes on the database (see rate-limit.store.ts). Answers 429
 * problem+json with Retry-After, and every API answer carries the IETF `RateLimit-Policy` /
 * `RateLimit` headers.
 */
export const rateLimitPlugin = fp(async (app: FastifyInstance) => {
  const max = app.config.rateLimitPerMinute;
  if (max <= 0) return;
  // Only the API is limited (not /docs or /). Decided per route when it is declared, so
  // requests pay nothing for it; runs before the plugin's own onRoute hook.
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith(API_PREFIX))
      route.config = { ...route.config, rateLimit: false } as typeof route.config;
  });
  await app.register(rateLimit, {
    global: true,
    max,
    timeWindow: WINDOW_SECONDS * 1000,
    enableDraftSpec: true,
    // A store that cannot reach the database lets the request through (and it is logged):
    // the request itself will meet the same database and fail there if it must.
    skipOnError: true,
    store: class extends SharedWindowStore {
      constructor() {
        super(app.db, app.log);
      }
    },
    keyGenerator: (req) => (req.auth ? `i:${req.auth.integrationId}` : `ip:${req.ip}`),
    errorResponseBuilder: (_req, context) =>
      new AppError(
        'rate_limited',
        `Rate limit of ${context.max} requests per minute exceeded; retry in ${context.after}`,
      ),
  });
  const policy = `"default";q=${max};w=${WINDOW_SECONDS}`;
  // A callback hook, not an async one: it runs on every answer and needs no promise.
  app.addHook('onSend', (_req, reply, payload, done) => {
    const remaining = reply.getHeader('ratelimit-remaining');
    const reset = reply.getHeader('ratelimit-reset');
    if (remaining !== undefined && reset !== undefined) {
      reply.header('ratelimit-policy', policy);
      reply.header('ratelimit', `"default";r=${remaining};t=${reset}`);
    }
    done(null, payload);
  });
});
