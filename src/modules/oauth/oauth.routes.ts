import formbody from '@fastify/formbody';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { parseScopes } from '../../plugins/auth.js';
import { AppError } from '../../shared/errors.js';
import { authenticateClient, issueToken } from '../integration/integration.service.js';

const TOKEN_TTL_SECONDS = 3600;

/**
 * OAuth 2.0 token endpoint (RFC 6749), client-credentials grant: an integration trades its
 * client id and secret for a short-lived access token carrying the requested subset of its
 * granted scopes (all of them when `scope` is omitted).
 */
export const oauthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(formbody);
  app.post(
    '/oauth/token',
    {
      config: { public: true },
      schema: {
        tags: ['OAuth'],
        summary: 'Issue an access token (client credentials)',
        description:
          'Client authentication by HTTP Basic (`client_id:client_secret`) or in the body. `application/x-www-form-urlencoded` or JSON.',
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        body: Type.Object({
          grant_type: Type.Literal('client_credentials'),
          scope: Type.Optional(Type.String({ description: 'Space-separated subset of the granted scopes' })),
          client_id: Type.Optional(Type.String()),
          client_secret: Type.Optional(Type.String()),
        }),
        response: {
          200: Type.Object({
            access_token: Type.String(),
            token_type: Type.Literal('Bearer'),
            expires_in: Type.Integer(),
            scope: Type.String(),
          }),
        },
      },
    },
    async (req, reply) => {
      let { client_id: id, client_secret: secret } = req.body;
      const basic = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
      if (basic) {
        const decoded = Buffer.from(basic[1]!, 'base64').toString();
        const colon = decoded.indexOf(':');
        id = decodeURIComponent(decoded.slice(0, colon));
        secret = decodeURIComponent(decoded.slice(colon + 1));
      }
      if (!id || !secret) throw new AppError('invalid_client', 'Client authentication is missing');
      const integration = await authenticateClient(app.db, id, secret);
      const granted = parseScopes(integration.scopes);
      const requested = req.body.scope === undefined ? granted : parseScopes(req.body.scope);
      const excess = requested.filter((s) => !granted.includes(s));
      if (excess.length)
        throw new AppError('insufficient_scope', `Scope(s) not granted: ${excess.join(', ')}`);
      const { token } = await issueToken(app.db, integration.id, requested, TOKEN_TTL_SECONDS);
      reply.header('cache-control', 'no-store');
      return {
        access_token: token,
        token_type: 'Bearer' as const,
        expires_in: TOKEN_TTL_SECONDS,
        scope: requested.join(' '),
      };
    },
  );
};
