import { readFileSync } from 'node:fs';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { API_PREFIX } from '../config.js';
import { Problem, problemResponse } from '../shared/schemas.js';
import { SCOPE_DESCRIPTIONS } from '../shared/scopes.js';

// Every scope with its plain-word description (`user-profile:read` stands for the `user-profile:` family).
const SCOPE_TABLE: Record<string, string> = { ...SCOPE_DESCRIPTIONS };

import { completeOperation, HEADERS, type Json } from './openapi-responses.js';
import { operationIdFor } from './operation-ids.js';
import { strictRoute } from './strict-input.js';

/** Real answers of the service for the main schemas (scripts/openapi-examples.ts writes them). */
const EXAMPLES: Record<string, unknown> = JSON.parse(
  readFileSync(new URL('./openapi-examples.json', import.meta.url), 'utf8'),
);

/** Tags in the order of the specification's sections; others (beyond it) follow, as they come. */
const TAGS: [string, string][] = [
  ['Users', 'The users of the account'],
  ['Clients', 'Customers that are invoiced'],
  ['Projects', 'Projects, their team, guests, phases, milestones, epics and tasks'],
  ['Portfolios', 'Groups of projects by portfolio'],
  ['Project groups', 'Groups of projects'],
  ['Tasks', 'Tasks of projects'],
  ['Task comments', 'Comments on tasks; only the author may change them'],
  ['Efforts', 'Time recorded on projects and tasks'],
  ['Contacts', 'People, optionally attached to a company'],
  ['Companies', 'Companies that contacts belong to'],
  ['Offers', 'Offers (quotes) with line items and PDF'],
  ['Outgoing invoices', 'Invoices and credits issued, plans, booking, PDF and XML'],
  ['Incoming invoices', 'Invoices and credits received, with their bookings'],
  ['Chart of accounts', 'Accounts and bookings'],
  ['Payments', 'Payments and credit settlements of invoices'],
  ['User groups', 'Groups of users'],
  ['Suppliers', 'Suppliers of incoming invoices'],
  ['Settings', 'Reference data'],
  ['Integration', 'The calling integration and its OAuth grants'],
  ['Files', 'Files attached to tasks, comments and documents'],
  ['Custom fields', 'Custom field definitions'],
  ['Webhooks', 'Webhook subscriptions and their deliveries'],
  // Beyond the specification:
  ['Account', 'The company profile of the account'],
  ['Changes', 'The change feed: every change of the account in commit order'],
  ['OAuth', 'Access tokens for integrations'],
  ['Health', 'Liveness and readiness of the service'],
];

/**
 * The published document, finished: every operation gets its `operationId` (operation-ids.ts),
 * its answers, problem codes and headers (openapi-responses.ts); tags follow the specification.
 */
function finishDocument(doc: Json): Json {
  const ids = new Map<string, string>();
  const used = new Set<string>();
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<Json>(item)) {
      if (typeof op !== 'object' || !op.responses) continue;
      op.operationId ??= operationIdFor(method, path);
      const clash = ids.get(op.operationId);
      if (clash) throw new Error(`operationId ${op.operationId} of ${method} ${path} is also ${clash}'s`);
      ids.set(op.operationId, `${method} ${path}`);
      for (const tag of op.tags ?? []) used.add(tag);
      completeOperation(doc, method, path, op, op.operationId);
    }
  }
  const known = TAGS.filter(([name]) => used.has(name)).map(([name, description]) => ({ name, description }));
  const others = [...used]
    .filter((t) => !TAGS.some(([name]) => name === t))
    .map((name) => ({ name, description: `${name} (beyond the specification)` }));
  doc.tags = [...known, ...others];
  doc.components.headers = { ...HEADERS };
  for (const [name, example] of Object.entries(EXAMPLES)) {
    const schema = doc.components.schemas?.[name];
    if (schema) schema.examples = [example];
  }
  return doc;
}

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
    // A GET route comes here twice (its HEAD twin shares the schema): say the scopes once.
    if (!String(schema.description ?? '').includes(scopeText))
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
          'Work management and billing. Every answer is JSON (`{ data }`, lists add `meta` and a `Link` header); every error is RFC 9457 problem+json with a stable `code`. Money is exact, written with at most two decimals.\n\nEvery operation names its answers with their problem `code`s (`x-problem-codes` on each answer). Answers any request may get before it reaches an operation: 400 `bad_request` (not valid HTTP), 405 `method_not_allowed` (with `Allow`), 408 `request_timeout`, 414 `uri_too_long`, 431 `header_too_large`, 404 `not_found` (no such path). `POST` takes an `Idempotency-Key`; API answers carry `RateLimit` and `RateLimit-Policy` when rate limiting is on.',
      },
      // Relative: "Try it out" on /docs and the SDK's default go to the host the document was
      // read from, whatever name (localhost, 127.0.0.1, a proxy's) that was.
      servers: [{ url: '/', description: 'This service' }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'Access token of an integration' },
          oauth2: {
            type: 'oauth2',
            description:
              'OAuth 2.0 authorization server (metadata: `/.well-known/oauth-authorization-server`, RFC 8414). Authorization code flow with PKCE (`S256`; required for public clients), refresh tokens rotated on every use (reusing one revokes the grant), client credentials for the integration itself; revocation `/oauth/revoke` (RFC 7009), introspection `/oauth/introspect` (RFC 7662, confidential clients). An app can be granted only the scopes its integration is registered for; the token acts as the user who consented. `POST /api/v1/oauth/token` (client credentials) keeps working.',
            flows: {
              authorizationCode: {
                authorizationUrl: '/oauth/auth',
                tokenUrl: '/oauth/token',
                refreshUrl: '/oauth/token',
                scopes: SCOPE_TABLE,
              },
              clientCredentials: {
                tokenUrl: '/oauth/token',
                scopes: SCOPE_TABLE,
              },
            },
          },
        },
      },
    },
    transformObject: (document) => finishDocument((document as { openapiObject: Json }).openapiObject),
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
