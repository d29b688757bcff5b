import formbody from '@fastify/formbody';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { parseScopes } from '../../shared/tokens.js';
import { authenticateClient, issueToken, userIsActive } from '../integration/integration.service.js';
import { clientCredentials } from './oauth.credentials.js';
import { OAuthError, OAuthErrorBody, oauthErrorHandler } from './oauth.errors.js';

const TOKEN_TTL_SECONDS = 3600;

// RFC 6749 Appendix A: VSCHAR for id and secret, NQCHAR tokens separated by spaces for scope.
const VSCHARS = '^[\\x20-\\x7E]*$';

/**
 * OAuth 2.0 token endpoint (RFC 6749), client-credentials grant: an integration trades its
 * client id and secret for a short-lived access token carrying the requested subset of its
 * granted scopes (all of them when `scope` is omitted). Errors are RFC 6749 §5.2 bodies
 * (see oauth.errors.ts), which is why this plugin has an error handler of its own.
 */
export const oauthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(formbody);
  app.setErrorHandler(oauthErrorHandler);
  // Runs after the OpenAPI plugin's own onRoute (parents' hooks first): a refused request here is
  // never the generic 422 problem it documents for every route, but one of the §5.2 answers.
  app.addHook('onRoute', (route) => {
    const responses = (route.schema as { response?: Record<string, unknown> } | undefined)?.response;
    if (responses) delete responses[422];
  });
  app.post(
    '/oauth/token',
    {
      config: { public: true },
      schema: {
        tags: ['OAuth'],
        summary: 'Issue an access token (client credentials)',
        description:
          'Client authentication by HTTP Basic (`client_id:client_secret`, each form-urlencoded first, RFC 6749 §2.3.1) or in the body, not both. `application/x-www-form-urlencoded` or JSON. Unrecognized parameters are ignored (RFC 6749 §3.2). Errors are RFC 6749 §5.2 JSON bodies `{ "error", "error_description" }` with `Cache-Control: no-store`, not problem+json: 400 `invalid_request`, `unsupported_grant_type`, `invalid_scope`, `unauthorized_client`; 401 `invalid_client` with `WWW-Authenticate: Basic`. Only 429 and 5xx are problem+json.',
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        body: Type.Object(
          {
            grant_type: Type.Literal('client_credentials'),
            scope: Type.Optional(
              Type.String({
                maxLength: 2000,
                pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E ]*$',
                description: 'Space-separated subset of the granted scopes',
              }),
            ),
            client_id: Type.Optional(Type.String({ maxLength: 200, pattern: VSCHARS })),
            client_secret: Type.Optional(Type.String({ maxLength: 200, pattern: VSCHARS })),
          },
          { additionalProperties: true },
        ),
        response: {
          200: Type.Object({
            access_token: Type.String(),
            token_type: Type.Literal('Bearer'),
            expires_in: Type.Integer(),
            scope: Type.String(),
          }),
          400: {
            ...OAuthErrorBody,
            description: 'invalid_request, unsupported_grant_type, invalid_scope, unauthorized_client',
          },
          401: {
            ...OAuthErrorBody,
            description: 'invalid_client: unknown client, wrong secret, malformed or missing credentials',
          },
        },
      },
    },
    async (req, reply) => {
      const { id, secret } = clientCredentials(req.headers.authorization, req.body);
      const integration = await authenticateClient(app.db, id, secret);
      if (!(await userIsActive(app.db, integration.user_id)))
        throw new OAuthError('unauthorized_client', "The integration's user is deactivated");
      const granted = parseScopes(integration.scopes);
      const requested = req.body.scope === undefined ? granted : parseScopes(req.body.scope);
      const excess = requested.filter((s) => !granted.includes(s));
      if (excess.length) throw new OAuthError('invalid_scope', `Scope(s) not granted: ${excess.join(', ')}`);
      const { token } = await issueToken(app.db, integration.id, requested, TOKEN_TTL_SECONDS);
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      return {
        access_token: token,
        token_type: 'Bearer' as const,
        expires_in: TOKEN_TTL_SECONDS,
        scope: requested.join(' '),
      };
    },
  );
};
