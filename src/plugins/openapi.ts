import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { API_PREFIX } from '../config.js';
import { Problem, problemResponse } from '../shared/schemas.js';
import { SCOPE_DESCRIPTIONS } from '../shared/scopes.js';

// Every scope with its plain-word description (`user-profile:read` stands for the `user-profile:` family).
const SCOPE_TABLE: Record<string, string> = { ...SCOPE_DESCRIPTIONS };

import { strictRoute } from './strict-input.js';

/**
 * Completes each API route's schema from its declarations, so nothing is written twice:
 * its scopes become the operation's `security` and `x-required-scopes`, and the error
 * answers it can give are added as problem+json responses.
 */
function decorateRoute(route: RouteOptions, seen: { method: string; url: string }[]) {
  const config = (route.config ?? {}) as { scopes?: readonly string[]; public?: boolean };
  if (!route.url.startsWith(API_PREFIX) || route.url === `${API_PREFIX}/openapi.json`) return;
  for (const method of [route.method].flat()) if (method !== 'HEAD') seen.push({ method, url: route.url });
  strictRoute(route);
  const schema = route.schema as Record<string, unknown> & { response?: Record<string, unknown> };
  schema.response ??= {};
  const responses = schema.response;
  const add = (status: number, description: string) => {
    if (!(status in responses)) responses[status] = problemResponse(description);
  };
  if (config.public) schema.security = [];
  else {
    if (!config.scopes)
      throw new Error(`route ${route.method} ${route.url} declares no scopes (use [] for "none")`);
    const scopes = [...config.scopes];
    schema.security = [{ bearerAuth: scopes }, { oauth2: scopes }];
    schema['x-required-scopes'] = scopes;
    const scopeText = scopes.length
      ? `Scopes (all required): ${scopes.map((s) => `\`${s}\``).join(', ')}.`
      : 'Scopes: none (any valid token).';
    schema.description = schema.description ? `${schema.description}\n\n${scopeText}` : scopeText;
    add(401, 'Missing, unknown, expired or revoked token');
    add(403, 'The token lacks a required scope');
    add(429, 'Rate limited');
  }
  if (schema.params) add(404, 'No such resource in this account');
  // Every API route validates its query string (strict-input.ts), so every one can answer 422.
  add(422, 'Validation failed');
  if (schema.body) add(400, 'Body is not parseable');
  add(500, 'Unexpected error');
}

export const openapiPlugin = fp(async (app: FastifyInstance) => {
  app.addSchema(Problem);
  const seen: { method: string; url: string }[] = [];
  app.decorate('apiRoutes', seen);
  app.addHook('onRoute', (route) => decorateRoute(route, seen));

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Project and Invoicing Service API',
        version: '1.0.0',
        description:
          'Work management and billing. Every answer is JSON (`{ data }`, lists add `meta` and a `Link` header); every error is RFC 9457 problem+json with a stable `code`. Money is exact, written with at most two decimals.',
      },
      servers: [{ url: app.config.publicUrl }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'Access token of an integration' },
          oauth2: {
            type: 'oauth2',
            description:
              'OAuth 2.0 authorization server (metadata: `/.well-known/oauth-authorization-server`, RFC 8414). Authorization code flow with PKCE (`S256`; required for public clients), refresh tokens rotated on every use (reusing one revokes the grant), client credentials for the integration itself; revocation `/oauth/revoke` (RFC 7009), introspection `/oauth/introspect` (RFC 7662, confidential clients). An app can be granted only the scopes its integration is registered for; the token acts as the user who consented. `POST /api/v1/oauth/token` (client credentials) keeps working.',
            flows: {
              authorizationCode: {
                authorizationUrl: `${app.config.publicUrl}/oauth/auth`,
                tokenUrl: `${app.config.publicUrl}/oauth/token`,
                refreshUrl: `${app.config.publicUrl}/oauth/token`,
                scopes: SCOPE_TABLE,
              },
              clientCredentials: {
                tokenUrl: `${app.config.publicUrl}/oauth/token`,
                scopes: SCOPE_TABLE,
              },
            },
          },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _base, _frag, i) => (json.$id as string) || `def-${i}` },
  });
  app.get(`${API_PREFIX}/openapi.json`, { config: { public: true }, schema: { hide: true } }, async () =>
    app.swagger(),
  );
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true },
  });
});
