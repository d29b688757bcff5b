import { type TSchema, Type } from 'typebox';
import type { Db } from '../../db/index.js';
import type { AuthContext } from '../../plugins/auth.js';
import { sendBytes } from '../../shared/http.js';
import { listResponse, type Page } from '../../shared/paging.js';
import { type App, described, type RouteSpec } from '../../shared/route-builders.js';
import { IdParams, List, PagingQuery, problemResponse } from '../../shared/schemas.js';
import { Binary } from '../files/files.public.js';
import { LineItem } from './line-items.js';
import type { PdfBytes } from './pdf.service.js';

/**
 * The routes documents (outgoing invoices, plans, offers) have alike besides the plain REST
 * ones of src/shared/route-builders.ts: line items (paged) and the PDF. One builder each, so
 * every resource answers and documents them the same way.
 */

/** Kept as the name documents' routes use; the shape is the shared one. */
export type DocumentRouteSpec = RouteSpec;

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
      listResponse(req, reply, await list(app.db, req.auth, req.params.id, req.query), (x) => x),
  );
}

/**
 * GET <path>/{id}/pdf, with byte ranges; `querystring`: the variants a document's PDF has.
 * `pdf` also gets the table versions the request's authentication read (`req.dataVersion`).
 */
export function pdfRoute<Q extends Record<string, unknown>>(
  app: App,
  s: DocumentRouteSpec & { querystring?: TSchema },
  pdf: (db: Db, auth: AuthContext, id: number, query: Q, dataVersion?: string) => Promise<PdfBytes>,
): void {
  app.get(
    `${s.path}/:id/pdf`,
    {
      config: s.config,
      schema: {
        ...described(s),
        params: IdParams,
        ...(s.querystring ? { querystring: s.querystring } : {}),
        response: {
          200: Binary('The PDF', 'application/pdf'),
          206: Binary('A byte range', 'application/pdf'),
          416: problemResponse('Range not satisfiable'),
        },
      },
    },
    async (req, reply) => {
      // The table versions read with the token: a kept document's service may answer from memory.
      const bytes = await pdf(app.db, req.auth, req.params.id, (req.query ?? {}) as Q, req.dataVersion);
      return sendBytes(req, reply, { ...bytes, contentType: 'application/pdf' });
    },
  );
}
