import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listRoute } from '../../shared/route-builders.js';
import { CustomFieldDefinition, CustomFieldListQuery } from './custom-fields.schemas.js';
import * as service from './custom-fields.service.js';

export const customFieldsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  listRoute(
    app,
    {
      path: '/custom-fields',
      tags: ['Custom fields'],
      config: { scopes: ['integration'] },
      summary: 'List custom field definitions',
      description:
        'Definitions per entity (project, task, contact, company) with key, label, type and, for `select`, the allowed options. A record shows its values in its `custom_fields` object by key.',
      querystring: CustomFieldListQuery,
      item: CustomFieldDefinition,
    },
    service.listDefinitions,
    service.toDefinition,
  );
};
