import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { listResponse } from '../../shared/paging.js';
import { Id, List, Nullable, PagingQuery, Timestamp } from '../../shared/schemas.js';
import * as service from './grants.service.js';

const tags = ['Integration'];
const scopes = ['integration'];

const Grant = Type.Object(
  {
    id: Type.String({ description: 'The grant id' }),
    integration_id: Id,
    app_name: Type.String(),
    app_homepage: Nullable(Type.String()),
    user_id: Id,
    user_email: Type.String(),
    scopes: Type.Array(Type.String(), { description: 'Scopes the user consented to' }),
    scope_descriptions: Type.Array(Type.String(), {
      description: 'The scopes in plain words, in the same order',
    }),
    created_at: Timestamp,
    expires_at: Nullable(Timestamp),
  },
  { $id: 'OAuthGrant' },
);

const GrantParams = Type.Object({ grant_id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }) });

/**
 * Beyond the specification: the apps a user authorized (OAuth grants), and revoking one.
 * A token acting as a user (authorization code flow) lists that user's grants; `all=true`
 * lists every grant of the account, for admins.
 */
export const grantsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/integration/grants',
    {
      config: { scopes },
      schema: {
        tags,
        summary: 'List the apps authorized by the user (OAuth grants)',
        description:
          "The grants of the token's user; with `all=true` every grant of the account (admins only, 403 otherwise). Not part of the specification.",
        querystring: Type.Object({
          ...PagingQuery,
          all: Type.Optional(Type.Boolean({ description: "true: every user's grants (admins)" })),
        }),
        response: { 200: List(Grant) },
      },
    },
    async (req, reply) =>
      listResponse(req, reply, await service.listGrants(app.db, req.auth, req.query), service.toGrant),
  );

  app.delete(
    '/integration/grants/:grant_id',
    {
      config: { scopes },
      schema: {
        tags,
        summary: 'Revoke an authorized app (OAuth grant)',
        description:
          "Ends the grant and every token issued under it (access and refresh tokens) at once. A user's own grants; an admin may revoke any grant of the account. Not part of the specification.",
        params: GrantParams,
        response: { 204: Type.Null({ description: 'Revoked' }) },
      },
    },
    async (req, reply) => {
      await service.revokeGrant(app.db, req.auth, req.params.grant_id);
      return reply.code(204).send(null);
    },
  );
};
