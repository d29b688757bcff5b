import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
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

/** A list of the chart: the query, one page of rows from the service, each row as `item`. */
function listRoute<Q extends TSchema, I extends TSchema, R>(
  app: App,
  url: string,
  doc: { summary: string; description: string },
  querystring: Q,
  item: I,
  list: (db: Db, auth: AuthContext, q: Static<Q>) => Promise<Page<R>>,
  map: (row: R) => Static<I>,
) {
  // `item` as a plain TSchema for the route: the call site checks `map` against the schema.
  const response = { 200: List(item as TSchema) };
  app.get(url, { config, schema: { tags, ...doc, querystring, response } }, async (req, reply) =>
    listResponse(req, reply, await list(app.db, req.auth, req.query as Static<Q>), map),
  );
}

export const chartOfAccountsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  listRoute(
    app,
    '/chart-of-accounts',
    {
      summary: 'List the chart of accounts',
      description: 'Accounts come in through the CLI import (section `chart_of_accounts`).',
    },
    ChartOfAccountListQuery,
    ChartOfAccount,
    service.listChartOfAccounts,
    service.toChartOfAccount,
  );

  listRoute(
    app,
    '/chart-of-accounts/bookings',
    {
      summary: 'List bookings on incoming invoices',
      description:
        'Every chart-of-account booking of incoming invoices; the date range applies to the invoice date.',
    },
    BookingListQuery,
    BookingOut,
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
