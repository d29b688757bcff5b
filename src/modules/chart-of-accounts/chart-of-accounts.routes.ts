import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifySchema } from 'fastify';
import type { Static, TSchema } from 'typebox';
import type { Db } from '../../db/index.js';
import { listResponse, type Page } from '../../shared/paging.js';
import { Data, IdParams, List } from '../../shared/schemas.js';
import type { AuthContext } from '../../shared/tokens.js';
import {
  BookingListQuery,
  BookingOut,
  ChartOfAccount,
  ChartOfAccountListQuery,
} from './chart-of-accounts.schemas.js';
import * as service from './chart-of-accounts.service.js';

type App = Parameters<FastifyPluginAsyncTypebox>[0];

const tags = ['Chart of accounts'];
// The chart is read-only over the API: accounts come from the import.
const config = { scopes: ['chart-of-accounts:read'] };

/**
 * GET <path>: a paged list of the chart. The same builder as outgoing-invoices' listRoute
 * (document.routes.ts), kept here until it moves to src/shared, where both can use it.
 */
function listRoute<Q extends TSchema, T>(
  app: App,
  s: { path: string; summary: string; description: string; querystring: Q; item: TSchema },
  list: (db: Db, auth: AuthContext, q: Static<Q>) => Promise<Page<T>>,
  toData: (row: T) => unknown,
): void {
  // Typed by `list`: the schema here validates, serializes and documents.
  const schema: FastifySchema = {
    tags,
    summary: s.summary,
    description: s.description,
    querystring: s.querystring,
    response: { 200: List(s.item) },
  };
  app.get(s.path, { config, schema }, async (req, reply) =>
    listResponse(req, reply, await list(app.db, req.auth, req.query as Static<Q>), toData),
  );
}

export const chartOfAccountsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  listRoute(
    app,
    {
      path: '/chart-of-accounts',
      summary: 'List the chart of accounts',
      description: 'Accounts come in through the CLI import (section `chart_of_accounts`).',
      querystring: ChartOfAccountListQuery,
      item: ChartOfAccount,
    },
    service.listChartOfAccounts,
    service.toChartOfAccount,
  );

  listRoute(
    app,
    {
      path: '/chart-of-accounts/bookings',
      summary: 'List bookings on incoming invoices',
      description:
        'Every chart-of-account booking of incoming invoices; the date range applies to the invoice date.',
      querystring: BookingListQuery,
      item: BookingOut,
    },
    service.listBookings,
    service.toChartBooking,
  );

  app.get(
    '/chart-of-accounts/:id',
    {
      config,
      schema: {
        tags,
        summary: 'Retrieve an account',
        params: IdParams,
        response: { 200: Data(ChartOfAccount) },
      },
    },
    async (req) => ({ data: await service.getChartOfAccount(app.db, req.auth, req.params.id) }),
  );
};
