/**
 * The one set of builders for the plain REST routes of a resource (issue 17, "one of
 * everything"): a paged list, one record by id, creation (201 with `Location`), a PATCH, and
 * the e-mail routes of a document (send, list its messages).
 * Each builder writes the operation's schema in the order the OpenAPI document shows it
 * (tags, summary, description, params/querystring, body, response), so that every resource
 * answers and documents these routes the same way. The resource gives its service functions.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifySchema } from 'fastify';
import { type Static, type TSchema, Type } from 'typebox';
import type { Db } from '../db/index.js';
import { listResponse, type Page } from './paging.js';
import { Data, IdParams, List, PagingQuery } from './schemas.js';
import type { AuthContext } from './tokens.js';

export type App = Parameters<FastifyPluginAsyncTypebox>[0];

/** Where a route lives and how the document names it. */
export interface RouteSpec {
  /** '/offers' */
  path: string;
  tags: string[];
  /** `pageCache`: a list whose answer depends on the database alone (plugins/page-cache.ts). */
  config: { scopes: string[]; pageCache?: readonly string[] };
  summary: string;
  /** Left out of the document when undefined. */
  description?: string;
  /** Further answers besides the success (409, 413, …), keyed by status code. */
  responses?: Record<number, TSchema>;
}

const same = <T>(x: T) => x;

/** Tags, summary and, where there is one, description: in that order, as the document shows them. */
export const described = (s: { tags: string[]; summary: string; description?: string }) =>
  s.description === undefined
    ? { tags: s.tags, summary: s.summary }
    : { tags: s.tags, summary: s.summary, description: s.description };

/** GET <path>: a paged list, `{ data, meta }` with a `Link` header. */
export function listRoute<Q extends TSchema, T>(
  app: App,
  s: RouteSpec & { querystring: Q; item: TSchema },
  list: (db: Db, auth: AuthContext, q: Static<Q>) => Promise<Page<T>>,
  toData: (row: T) => unknown = same,
): void {
  // Typed by `list`: the schema here validates, serializes and documents.
  const schema: FastifySchema = {
    ...described(s),
    querystring: s.querystring,
    response: { 200: List(s.item), ...s.responses },
  };
  app.get(s.path, { config: s.config, schema }, async (req, reply) =>
    listResponse(req, reply, await list(app.db, req.auth, req.query as Static<Q>), toData),
  );
}

/** GET <path>: one record by the id in the path (`IdParams` unless `params`), `{ data }`. */
export function getRoute<T>(
  app: App,
  s: RouteSpec & { params?: TSchema; item: TSchema },
  get: (db: Db, auth: AuthContext, id: number) => Promise<T>,
  toData: (row: T) => unknown = same,
): void {
  const schema: FastifySchema = {
    ...described(s),
    params: s.params ?? IdParams,
    response: { 200: Data(s.item), ...s.responses },
  };
  app.get(s.path, { config: s.config, schema }, async (req) => ({
    data: toData(await get(app.db, req.auth, (req.params as { id: number }).id)),
  }));
}

export interface CreateRouteSpec<B extends TSchema, R extends TSchema> extends RouteSpec {
  /** Path parameters (`IdParams` for …/{id}/…); none when absent. */
  params?: TSchema;
  body: B;
  /** The answer's schema (`data` of the 201). */
  response: R;
  /** Where the created record lives: `Location` is this, a slash and its id. */
  location: string;
}

/** POST that creates a record: 201 with it (through `toData`) and its `Location`. */
export function createRoute<
  B extends TSchema,
  R extends TSchema,
  T extends { id: number } = Static<R> & { id: number },
>(
  app: App,
  s: CreateRouteSpec<B, R>,
  create: (db: Db, auth: AuthContext, body: Static<B>, params: { id: number }) => Promise<T>,
  toData: (row: T) => unknown = same,
): void {
  // Typed by `create`: the schema here validates, serializes and documents.
  const schema: FastifySchema = {
    ...described(s),
    ...(s.params === undefined ? {} : { params: s.params }),
    body: s.body,
    response: { 201: Data(s.response), ...s.responses },
  };
  app.post(s.path, { config: s.config, schema }, async (req, reply) => {
    const row = await create(app.db, req.auth, req.body as Static<B>, req.params as { id: number });
    reply.code(201).header('location', `${app.prefix}${s.location}/${row.id}`);
    return { data: toData(row) };
  });
}

/** PATCH <path> (…/:id): changes one record by the id in the path, `{ data }`. */
export function updateRoute<B extends TSchema, T>(
  app: App,
  s: RouteSpec & { params?: TSchema; body: B; item: TSchema },
  update: (db: Db, auth: AuthContext, id: number, body: Static<B>) => Promise<T>,
  toData: (row: T) => unknown = same,
): void {
  const schema: FastifySchema = {
    ...described(s),
    params: s.params ?? IdParams,
    body: s.body,
    response: { 200: Data(s.item), ...s.responses },
  };
  app.patch(s.path, { config: s.config, schema }, async (req) => ({
    data: toData(await update(app.db, req.auth, (req.params as { id: number }).id, req.body as Static<B>)),
  }));
}

/** The two e-mail routes of one kind of document, as `documentMailRoutes` declares them. */
export interface DocumentMailSpec<B extends TSchema> {
  /** The document's collection: '/offers' gives '/offers/:id/send' and '/offers/:id/messages'. */
  path: string;
  tags: string[];
  /** A message as both routes answer it. */
  message: TSchema;
  send: Omit<RouteSpec, 'path' | 'tags'> & { body: B };
  messages: Omit<RouteSpec, 'path' | 'tags'>;
}

const messagesQuery = () => Type.Object(PagingQuery, { additionalProperties: false });
type MessagesQuery = Static<ReturnType<typeof messagesQuery>>;

/**
 * POST <path>/:id/send queues an e-mail of the document (202 with the message) and
 * GET <path>/:id/messages lists the document's messages: invoices, offers and dunning letters
 * are sent alike, so their routes differ only in scopes, texts and the service they call.
 */
export function documentMailRoutes<B extends TSchema, M, T>(
  app: App,
  s: DocumentMailSpec<B>,
  send: (db: Db, auth: AuthContext, id: number, body: Static<B>, mail: App['config']['mail']) => Promise<M>,
  list: (db: Db, auth: AuthContext, id: number, q: MessagesQuery) => Promise<Page<T>>,
  toData: (row: T) => unknown,
): void {
  const sendSchema: FastifySchema = {
    ...described({ tags: s.tags, ...s.send }),
    params: IdParams,
    body: s.send.body,
    response: { 202: Data(s.message), ...s.send.responses },
  };
  app.post(`${s.path}/:id/send`, { config: s.send.config, schema: sendSchema }, async (req, reply) => {
    const id = (req.params as { id: number }).id;
    const data = await send(app.db, req.auth, id, req.body as Static<B>, app.config.mail);
    reply.code(202);
    return { data };
  });
  const messagesSchema: FastifySchema = {
    ...described({ tags: s.tags, ...s.messages }),
    params: IdParams,
    querystring: messagesQuery(),
    response: { 200: List(s.message), ...s.messages.responses },
  };
  app.get(
    `${s.path}/:id/messages`,
    { config: s.messages.config, schema: messagesSchema },
    async (req, reply) => {
      const id = (req.params as { id: number }).id;
      const q = req.query as MessagesQuery;
      return listResponse(req, reply, await list(app.db, req.auth, id, q), toData);
    },
  );
}
