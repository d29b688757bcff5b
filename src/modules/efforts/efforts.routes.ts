import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listRoute } from '../../shared/route-builders.js';
import { Effort, EffortListQuery } from './efforts.schemas.js';
import * as service from './efforts.service.js';

export const effortsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  listRoute(
    app,
    {
      path: '/efforts',
      tags: ['Efforts'],
      config: { scopes: ['efforts:read'], pageCache: true },
      summary: 'List efforts (time entries)',
      description:
        'Efforts of type `admin` are included only when the token also holds `efforts:extended:read`; without it they are left out of the list and its total (even with `type=admin`).',
      querystring: EffortListQuery,
      item: Effort,
    },
    service.listEfforts,
    service.toEffort,
  );
};
