import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { readiness } from '../db/health.js';
import { AppError } from '../shared/errors.js';
import { problemResponse } from '../shared/schemas.js';
import { sendProblem } from './errors.js';

const Status = Type.Object({ status: Type.Literal('ok') });
// Strict like every query string of the API: a parameter a probe does not take is a 422.
const NoQuery = Type.Object({}, { additionalProperties: false });
const unknownParameter = problemResponse('A query parameter was sent: these take none');

/**
 * Probes for load balancers and orchestrators, at the root (outside the API prefix: no token,
 * no rate limit, no request log below warn, since they are polled every few seconds).
 * `/health`: the process serves (liveness; never touches the database, so an outage does not
 * get healthy processes restarted). `/ready`: the database answers and is migrated
 * (readiness: send traffic here).
 */
export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/health',
    {
      logLevel: 'warn',
      config: { public: true },
      schema: {
        tags: ['Health'],
        summary: 'Liveness: the process serves',
        description: 'Public (no token), not rate limited. Does not check the database: see `GET /ready`.',
        security: [],
        querystring: NoQuery,
        response: { 200: { ...Status, description: 'The process serves' }, 422: unknownParameter },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/ready',
    {
      logLevel: 'warn',
      config: { public: true },
      schema: {
        tags: ['Health'],
        summary: 'Readiness: the database answers and every migration is applied',
        description:
          'Public (no token), not rate limited. 503 problem+json (`code: unavailable`, with `Retry-After`) while the database cannot be reached or migrations are pending; the member `database` says which (`unavailable`, `migrations_pending`).',
        security: [],
        querystring: NoQuery,
        response: {
          200: { ...Status, description: 'Ready to serve' },
          422: unknownParameter,
          503: problemResponse('The database cannot be reached, or migrations are pending'),
        },
      },
    },
    async (req, reply) => {
      const state = await readiness(app.db);
      if (state.ready) return { status: 'ok' as const };
      req.log.warn({ err: state.error, database: state.database }, 'not ready');
      return sendProblem(
        reply,
        new AppError('unavailable', undefined, {
          headers: { 'retry-after': '5' },
          extra: { database: state.database },
        }),
        req,
      );
    },
  );
}
