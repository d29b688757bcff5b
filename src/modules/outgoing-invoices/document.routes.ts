import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifySchema } from 'fastify';
import { type Static, type TSchema, Type } from 'typebox';
import type { Db } from '../../db/index.js';
import type { AuthContext } from '../../plugins/auth.js';
import { sendBytes } from '../../shared/http.js';
import { listResponse, type Page } from '../../shared/paging.js';
import { Data, IdParams, List, PagingQuery, problemResponse } from '../../shared/schemas.js';
import { Binary } from '../files/files.public.js';
import { LineItem } from './line-items.js';
import type { PdfBytes } from './pdf.service.js';

/**
 * The routes documents (outgoing invoices, plans, offers) have alike: creation, line items
 * (paged) and the PDF. One builder each, so every resource answers and documents them the
 * same way.
 */

type App = Parameters<FastifyPluginAsyncTypebox>[0];

export interface DocumentRouteSpec {
  /** '/offers' */
  path: string;
  tags: string[];
  config: { scopes: string[] };
  summary: string;
  description?: string;
}

const same = <T>(x: T) => x;

/** Summary and, where there is one, description: in that order, as the document shows them. */
const described = (s: DocumentRouteSpec) =>
  s.description === undefined ? { summary: s.summary } : { summary: s.summary, description: s.description };

/** GET <path>: a paged list, `{ data, meta }` with a `Link` header. */
export function listRoute<Q extends TSchema, T>(
  app: App,
  s: DocumentRouteSpec & { querystring: Q; item: TSchema },
  list: (db: Db, auth: AuthContext, q: Static<Q>) => Promise<Page<T>>,
  toData: (row: T) => unknown = same,
): void {
  // Typed by `list`: the schema here validates, serializes and documents.
  const schema: FastifySchema = {
    tags: s.tags,
    ...described(s),
    querystring: s.querystring,
    response: { 200: List(s.item) },
  };
  app.get(s.path, { config: s.config, schema }, async (req, reply) =>
    listResponse(req, reply, await list(app.db, req.auth, req.query as Static<Q>), toData),
  );
}

/** GET <path>: one record by the id in the path, `{ data }`. */
export function getRoute(
  app: App,
  s: DocumentRouteSpec & { params?: TSchema; item: TSchema },
  get: (db: Db, auth: AuthContext, id: number) => Promise<unknown>,
): void {
  const schema: FastifySchema = {
    tags: s.tags,
    ...described(s),
    params: s.params ?? IdParams,
    response: { 200: Data(s.item) },
  };
  app.get(s.path, { config: s.config, schema }, async (req) => ({
    data: await get(app.db, req.auth, (req.params as { id: number }).id),
  }));
}

/** GET <path>/{id}/line-items */
export function lineItemsRoute(
  app: App,
  s: DocumentRouteSpec,
  list: (
    db: Db,
    auth: AuthContext,
    id: number,
    q: { page?: number; per_page?: number },
  ) => Promise<Page<LineItem>>,
): void {
  app.get(
    `${s.path}/:id/line-items`,
    {
      config: s.config,
      schema: {
        tags: s.tags,
        summary: s.summary,
        params: IdParams,
        querystring: Type.Object(PagingQuery, { additionalProperties: false }),
        response: { 200: List(LineItem) },
      },
    },
    async (req, reply) =>
      listResponse(req, reply, await list(app.db, req.auth, req.params.id, req.query), same),
  );
}

/** GET <path>/{id}/pdf, with byte ranges. */
export function pdfRoute(
  app: App,
  s: DocumentRouteSpec,
  pdf: (db: Db, auth: AuthContext, id: number) => Promise<PdfBytes>,
): void {
  app.get(
    `${s.path}/:id/pdf`,
    {
      config: s.config,
      schema: {
        tags: s.tags,
        ...described(s),
        params: IdParams,
        response: {
          200: Binary('The PDF', 'application/pdf'),
          206: Binary('A byte range', 'application/pdf'),
          416: problemResponse('Range not satisfiable'),
        },
      },
    },
    async (req, reply) => {
      const bytes = await pdf(app.db, req.auth, req.params.id);
      return sendBytes(req, reply, { ...bytes, contentType: 'application/pdf' });
    },
  );
}

export interface CreateRouteSpec<B extends TSchema, R extends TSchema> extends DocumentRouteSpec {
  description: string;
  /** Path parameters (`IdParams` for …/{id}/…); none when absent. */
  params?: TSchema;
  body: B;
  /** The answer's schema (`data` of the 201). */
  response: R;
  /** Where the created record lives: `Location` is this, a slash and its id. */
  location: string;
}

/** POST that creates a record: 201 with it and its `Location`. */
export function createRoute<B extends TSchema, R extends TSchema>(
  app: App,
  s: CreateRouteSpec<B, R>,
  create: (
    db: Db,
    auth: AuthContext,
    body: Static<B>,
    params: { id: number },
  ) => Promise<Static<R> & { id: number }>,
): void {
  // Typed by `create`: the schema here validates, serializes and documents.
  const schema: FastifySchema = {
    tags: s.tags,
    summary: s.summary,
    description: s.description,
    ...(s.params === undefined ? {} : { params: s.params }),
    body: s.body,
    response: { 201: Data(s.response) },
  };
  app.post(s.path, { config: s.config, schema }, async (req, reply) => {
    const data = await create(app.db, req.auth, req.body as Static<B>, req.params as { id: number });
    reply.code(201).header('location', `${app.prefix}${s.location}/${data.id}`);
    return { data };
  });
}
