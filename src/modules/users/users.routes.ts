import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { listResponse } from '../../shared/paging.js';
import { Data, IdParams, List } from '../../shared/schemas.js';
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

  app.get(
    '/users',
    {
      config: { scopes: [] },
      schema: {
        tags,
        summary: 'List users (basic data)',
        querystring: UserListQuery,
        response: { 200: List(UserBasic) },
      },
    },
    async (req, reply) =>
      listResponse(req, reply, await service.listUsers(app.db, req.auth, req.query), service.toUserBasic),
  );

  app.get(
    '/users/full',
    {
      config: { scopes: ['user:read'] },
      schema: {
        tags,
        summary: 'List users (UserFullData)',
        querystring: UserListQuery,
        response: { 200: List(UserFull) },
      },
    },
    async (req, reply) => {
      const page = await service.withGroups(app.db, await service.listUsers(app.db, req.auth, req.query));
      return listResponse(req, reply, page, (u) => u);
    },
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
