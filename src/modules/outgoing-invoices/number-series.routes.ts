import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { listResponse } from '../../shared/paging.js';
import { List, PagingQuery } from '../../shared/schemas.js';
import { NumberSeries } from './number-series.schemas.js';
import { listNumberSeries } from './number-series.service.js';

export const numberSeriesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/outgoing-invoices/number-series',
    {
      config: { scopes: ['outgoing-invoice:read'] },
      schema: {
        tags: ['Outgoing invoices'],
        summary: 'Invoice number series and their gaps',
        description:
          'Beyond the specification. Each number sequence (kind and year) with its last number and the count of booked invoices holding its numbers; `gaps` lists every number of 1 … last that no live booked invoice holds, each with the (soft-deleted) invoice that explains it. Booked numbers are never reused: a deleted invoice keeps its number.',
        querystring: Type.Object({ ...PagingQuery }, { additionalProperties: false }),
        response: { 200: List(NumberSeries) },
      },
    },
    async (req, reply) =>
      listResponse(req, reply, await listNumberSeries(app.db, req.auth, req.query), (s) => s),
  );
};
