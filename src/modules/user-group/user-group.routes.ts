import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getRoute, listRoute } from '../../shared/route-builders.js';
import { UserGroup, UserGroupListQuery } from './user-group.schemas.js';
import * as service from './user-group.service.js';

const spec = { tags: ['User groups'], config: { scopes: ['user_group:read'] }, item: UserGroup };

export const userGroupRoutes: FastifyPluginAsyncTypebox = async (app) => {
  listRoute(
    app,
    {
      ...spec,
      path: '/user-group',
      summary: 'List user groups',
      description: 'Each group with its members (basic user data).',
      querystring: UserGroupListQuery,
    },
    service.listGroups,
  );
  getRoute(
    app,
    { ...spec, path: '/user-group/:id', summary: 'Retrieve a user group with its members' },
    service.getGroup,
  );
};
