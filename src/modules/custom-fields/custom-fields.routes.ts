import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listResponse } from '../../shared/paging.js';
import { List } from '../../shared/schemas.js';
import { CustomFieldDefinition, CustomFieldListQuery } from './custom-fields.schemas.js';
import * as service from './custom-fields.service.js';

export const customFieldsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/custom-fields',
    {
      config: { scopes: ['integration'] },
      schema: {
        tags: ['Custom fields'],
        summary: 'List custom field definitions',
        description:
          'Definitions per entity (project, task, contact, company) with key, label, type and, for `select`, the allowed options. A record shows its values in its `custom_fields` object by key.',
        querystring: CustomFieldListQuery,
        response: { 200: List(CustomFieldDefinition) },
      },
    },
    async (req, reply) =>
      listResponse(
        req,
        reply,
        await service.listDefinitions(app.db, req.auth, req.query),
        service.toDefinition,
      ),
  );
};
