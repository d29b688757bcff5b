import type { FastifyRequest, RouteOptions } from 'fastify';
import { validationFailed } from '../shared/errors.js';
import { NO_PARAMETERS, strictSchema } from '../shared/strict-schema.js';
import { addRouteHook } from './route-hooks.js';

type RouteSchema = Record<string, unknown> & { body?: unknown; querystring?: unknown; params?: unknown };

/** The body schema of each content type (`body.content`), or the body schema itself. */
function strictBody(body: unknown): unknown {
  const content = (body as { content?: Record<string, { schema?: unknown }> }).content;
  if (!content) return strictSchema(body);
  return {
    ...(body as object),
    content: Object.fromEntries(
      Object.entries(content).map(([type, c]) => [type, { ...c, schema: strictSchema(c.schema) }]),
    ),
  };
}

/** A route that declares no body takes none: anything but an empty object is refused. */
async function refuseBody(req: FastifyRequest) {
  const body = req.body as unknown;
  if (body === undefined || body === null) return;
  const names = typeof body === 'object' && !Array.isArray(body) ? Object.keys(body) : ['(root)'];
  if (names.length === 0) return;
  const errors = names.map((field) => ({ field, message: 'must NOT have additional properties' }));
  throw validationFailed(errors, 'This operation takes no request body');
}

/** A JSON body whose fields are all optional may be left out: it is then `{}`. */
async function emptyBody(req: FastifyRequest) {
  if (req.body === undefined) req.body = {};
}

/**
 * A route taking JSON or multipart (`body.content`): Fastify validates only the content type
 * that was sent, so a request that sent none would reach the handler without a body.
 */
async function requireBody(req: FastifyRequest) {
  if (req.body === undefined && !req.isMultipart?.())
    throw validationFailed(
      [{ field: 'body', message: 'is required: send application/json or multipart/form-data' }],
      'A request body is required',
    );
}

/**
 * Makes a route's input strict (see shared/strict-schema.ts): its body, query string and path
 * schemas are replaced by their strict copies, which the OpenAPI document then publishes; a
 * route without a query-string schema takes no query parameters, one without a body schema no
 * body fields. Runs in onRoute, before the schemas are compiled.
 */
export function strictRoute(route: RouteOptions): void {
  route.schema ??= {};
  const schema = route.schema as RouteSchema;
  if (schema.body !== undefined) {
    schema.body = strictBody(schema.body);
    const body = schema.body as {
      content?: Record<string, unknown>;
      required?: unknown[];
      minProperties?: number;
    };
    if (body.content?.['application/json']) addRouteHook(route, 'preValidation', requireBody, 'last');
    else if (!body.content && !body.required?.length && !body.minProperties)
      addRouteHook(route, 'preValidation', emptyBody, 'first');
  } else if ([route.method].flat().some((m) => m !== 'GET' && m !== 'HEAD'))
    addRouteHook(route, 'preValidation', refuseBody, 'last');
  schema.querystring = schema.querystring === undefined ? NO_PARAMETERS : strictSchema(schema.querystring);
  if (schema.params !== undefined) schema.params = strictSchema(schema.params);
}
