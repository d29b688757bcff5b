import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { API_PREFIX } from '../config.js';
import { AppError } from '../shared/errors.js';
import type { RefusalHook } from './auth.js';
import { SharedWindowStore, type Take } from './rate-limit.store.js';
import { addRouteHook } from './route-hooks.js';

const WINDOW_SECONDS = 60;

/**
 * The time the budgets are counted in: tests move it to the next window instead of waiting
 * for the wall clock to get there (as src/web/clock.ts does for sign-in).
 */
export const rateLimitClock = { now: (): number => Date.now() };

/**
 * For a route that writes its answer itself (`reply.hijack()`, the OAuth endpoints): puts the
 * budget's headers, which `answer` set on the reply, on the raw response that will carry them.
 */
export function carryBudgetHeaders(reply: FastifyReply): void {
  for (const name of ['ratelimit-policy', 'ratelimit']) {
    const value = reply.getHeader(name);
    if (value !== undefined) reply.raw.setHeader(name, value);
  }
}

/**
 * Per-integration request budget (anonymous callers: per IP), a fixed one-minute window
 * shared by all processes on the database (see rate-limit.store.ts). Every API answer carries
 * the IETF `RateLimit-Policy` and `RateLimit` headers; past the budget the answer is 429
 * problem+json with `Retry-After`.
 *
 * Written here rather than with @fastify/rate-limit: that plugin's per-request work (several
 * promises, a route-options object, five headers) cost about a third of the throughput of
 * `GET /clients/{id}` (bench, A/B), it does not emit these headers, and the store — the part
 * that matters — is ours anyway. This hook answers synchronously while a lease lasts.
 */
export const rateLimitPlugin = fp(async (app: FastifyInstance) => {
  const max = app.config.rateLimitPerMinute;
  if (max <= 0) return;
  const store = new SharedWindowStore(app.db, app.log, undefined, () => rateLimitClock.now());
  const windowMs = WINDOW_SECONDS * 1000;
  const policy = `"default";q=${max};w=${WINDOW_SECONDS}`;

  function answer(reply: FastifyReply, taken: Take): AppError | undefined {
    const reset = Math.ceil(taken.ttl / 1000);
    reply.header('ratelimit-policy', policy);
    reply.header('ratelimit', `"default";r=${Math.max(0, max - taken.current)};t=${reset}`);
    if (taken.current <= max) return undefined;
    return new AppError(
      'rate_limited',
      `Rate limit of ${max} requests per minute exceeded; retry in ${reset} s`,
      {
        headers: { 'retry-after': String(reset) },
      },
    );
  }

  const count = (req: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    const key = req.auth ? `i:${req.auth.integrationId}` : `ip:${req.ip}`;
    store.take(key, windowMs, max, (err, taken) => {
      // A store that cannot reach the database lets the request through (the store logs
      // it): the request meets the same database and fails there if it must.
      if (err || !taken) done();
      else done(answer(reply, taken));
    });
  };
  const limit: onRequestHookHandler = count;

  // Requests the auth hook refuses (no token, a bad one, a missing scope) count too: past the
  // budget they are 429 instead of 401/403. Otherwise guessing tokens would be free.
  const refusal: RefusalHook = (req, reply, err, done) =>
    count(req, reply, (limited) => done(limited ?? err));
  app.decorate('authRefusal', refusal);

  // Only the API and the routes that ask (`rateLimited`: the OAuth endpoints) are limited, not
  // /docs or /, after authentication (auth.ts adds its hook first), so that the budget is the
  // integration's; anonymous callers and refused tokens count per client address.
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith(API_PREFIX) && !route.config?.rateLimited) return;
    addRouteHook(route, 'onRequest', limit, 'last');
  });
});
