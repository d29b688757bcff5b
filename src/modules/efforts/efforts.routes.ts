import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listResponse } from '../../shared/paging.js';
import { List } from '../../shared/schemas.js';
import { Effort, EffortListQuery } from './efforts.schemas.js';
import * as service from './efforts.service.js';

export const effortsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/efforts',
    {
      config: { scopes: ['efforts:read'] },
      schema: {
        tags: ['Efforts'],
        summary: 'List efforts (time entries)',
        description:
          'Efforts of type `admin` are included only when the token also holds `efforts:extended:read`; without it they are left out of the list and its total (even with `type=admin`).',
        querystring: EffortListQuery,
        response: { 200: List(Effort) },
      },
    },
    async (req, reply) =>
      listResponse(req, reply, await service.listEfforts(app.db, req.auth, req.query), service.toEffort),
  );
};
