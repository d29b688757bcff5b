import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { listRoute } from '../../shared/route-builders.js';
import { Data, IdParams } from '../../shared/schemas.js';
import { UserBasic, UserFull, UserListQuery } from './users.schemas.js';
import * as service from './users.service.js';

const tags = ['Users'];

export const usersRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/whoami',
    {
      config: { scopes: [] },
      schema: { tags, summary: 'The current user', response: { 200: Data(UserFull) } },
    },
    async (req) => ({ data: await service.getUserFull(app.db, req.auth, req.auth.userId) }),
  );

  const users = { path: '/users', tags, querystring: UserListQuery };
  listRoute(
    app,
    { ...users, config: { scopes: [] }, summary: 'List users (basic data)', item: UserBasic },
    service.listUsers,
    service.toUserBasic,
  );
  listRoute(
    app,
    {
      ...users,
      path: '/users/full',
      config: { scopes: ['user:read'] },
      summary: 'List users (UserFullData)',
      item: UserFull,
    },
    async (db, auth, q) => service.withGroups(db, await service.listUsers(db, auth, q)),
  );

  app.get(
    '/users/:id',
    {
      config: { scopes: [] },
      schema: {
        tags,
        summary: 'Retrieve a user',
        description:
          'Returns UserFullData if the token holds any `user:` scope, or a `user-profile:` scope and the user is the current user; basic data otherwise.',
        params: IdParams,
        response: { 200: Data(Type.Union([UserFull, UserBasic])) },
      },
    },
    async (req, reply) => {
      const data = await service.getUser(app.db, req.auth, req.params.id);
      // One of the two mapped forms exactly: skip testing the body against each union member.
      reply.type('application/json; charset=utf-8').serializer(JSON.stringify);
      return { data };
    },
  );
};
