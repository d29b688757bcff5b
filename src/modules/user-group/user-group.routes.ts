import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listResponse } from '../../shared/paging.js';
import { Data, IdParams, List } from '../../shared/schemas.js';
import { UserGroup, UserGroupListQuery } from './user-group.schemas.js';
import * as service from './user-group.service.js';

const tags = ['User groups'];

export const userGroupRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/user-group',
    {
      config: { scopes: ['user_group:read'] },
      schema: {
        tags,
        summary: 'List user groups',
        description: 'Each group with its members (basic user data).',
        querystring: UserGroupListQuery,
        response: { 200: List(UserGroup) },
      },
    },
    async (req, reply) =>
      listResponse(req, reply, await service.listGroups(app.db, req.auth, req.query), (g) => g),
  );

  app.get(
    '/user-group/:id',
    {
      config: { scopes: ['user_group:read'] },
      schema: {
        tags,
        summary: 'Retrieve a user group with its members',
        params: IdParams,
        response: { 200: Data(UserGroup) },
      },
    },
    async (req) => ({ data: await service.getGroup(app.db, req.auth, req.params.id) }),
  );
};
