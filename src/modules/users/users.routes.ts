import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { listRoute } from '../../shared/route-builders.js';
import { Data, IdParams } from '../../shared/schemas.js';
import { UserBasic, UserFull, UserListQuery, UserRates, UserRatesPut } from './users.schemas.js';
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

  app.get(
    '/users/:id/rates',
    {
      config: { scopes: ['user:read'] },
      schema: {
        tags,
        summary: 'Rates of a user',
        description:
          'Beyond the specification: the user’s default sale rate an hour (`hourly_rate`, used where no effort, task, team or project rate applies) and internal cost rate (`cost_rate`, for margins); null where not set.',
        params: IdParams,
        response: { 200: Data(UserRates) },
      },
    },
    async (req) => ({ data: await service.getUserRates(app.db, req.auth, req.params.id) }),
  );

  app.put(
    '/users/:id/rates',
    {
      config: { scopes: ['user:write'] },
      schema: {
        tags,
        summary: 'Set the rates of a user',
        description:
          'Beyond the specification: sets both rates (`null` clears one). The token’s user must be an administrator of the account (403 `forbidden` otherwise, as for the company profile). A change moves the user’s `updated_at`, so the change feed shows the user updated.',
        params: IdParams,
        body: UserRatesPut,
        response: { 200: Data(UserRates) },
      },
    },
    async (req) => ({ data: await service.setUserRates(app.db, req.auth, req.params.id, req.body) }),
  );
};
