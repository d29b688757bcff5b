import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createRoute, listRoute, updateRoute } from '../../shared/route-builders.js';
import { IdParams, problemResponse } from '../../shared/schemas.js';
import { Effort, EffortCreate, EffortListQuery, EffortUpdate } from './efforts.schemas.js';
import * as service from './efforts.service.js';

const tags = ['Efforts'];
const write = { scopes: ['efforts:write'] };
const WHO =
  'Beyond the specification. `efforts:write` covers the token user’s own work and travel; another user’s effort, or `admin` time, needs `efforts:extended:write` too (403). `project_id`, `task_id` and `user_id` must be of the account (422 naming the field); a task must belong to the project.';
const BILLED =
  '`effort_billed`: the effort stands on an invoice; only its `description` may still change, and it cannot be deleted until the invoice is deleted';

export const effortsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  listRoute(
    app,
    {
      path: '/efforts',
      tags: ['Efforts'],
      config: { scopes: ['efforts:read'], pageCache: ['efforts'] },
      summary: 'List efforts (time entries)',
      description:
        'Efforts of type `admin` are included only when the token also holds `efforts:extended:read`; without it they are left out of the list and its total (even with `type=admin`).',
      querystring: EffortListQuery,
      item: Effort,
    },
    service.listEfforts,
    service.toEffort,
  );

  createRoute(
    app,
    {
      path: '/efforts',
      tags,
      config: write,
      summary: 'Record an effort',
      description: WHO,
      body: EffortCreate,
      response: Effort,
      location: '/efforts',
    },
    service.createEffort,
    service.toEffort,
  );

  updateRoute(
    app,
    {
      path: '/efforts/:id',
      tags,
      config: write,
      summary: 'Update an effort',
      description: `${WHO} An effort on an invoice keeps what it was billed at: changing its user, project, task, date, duration, type, \`billable\` or \`hourly_rate\` is a 409.`,
      body: EffortUpdate,
      item: Effort,
      responses: { 409: problemResponse(BILLED) },
    },
    service.updateEffort,
    service.toEffort,
  );

  app.delete(
    '/efforts/:id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Delete an effort',
        description: `${WHO} The effort is removed for good.`,
        params: IdParams,
        response: { 204: Type.Null({ description: 'Deleted' }), 409: problemResponse(BILLED) },
      },
    },
    async (req, reply) => {
      await service.deleteEffort(app.db, req.auth, req.params.id);
      return reply.code(204).send(null);
    },
  );
};
