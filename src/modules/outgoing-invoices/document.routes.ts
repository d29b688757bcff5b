import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../../db/index.js';
import type { AuthContext } from '../../plugins/auth.js';
import { sendBytes } from '../../shared/http.js';
import { listResponse, type Page } from '../../shared/paging.js';
import { IdParams, List, PagingQuery, problemResponse } from '../../shared/schemas.js';
import { Binary } from '../files/files.public.js';
import { LineItem } from './line-items.js';
import type { PdfBytes } from './pdf.service.js';

/**
 * The routes every document (outgoing invoice, offer) has alike: its line items, paged, and
 * its PDF. One builder each, so both resources answer and document them the same way.
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
        summary: s.summary,
        ...(s.description === undefined ? {} : { description: s.description }),
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
