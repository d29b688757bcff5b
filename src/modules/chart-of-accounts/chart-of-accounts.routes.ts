import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listResponse } from '../../shared/paging.js';
import { Data, IdParams, List } from '../../shared/schemas.js';
import {
  BookingListQuery,
  BookingOut,
  ChartOfAccount,
  ChartOfAccountListQuery,
} from './chart-of-accounts.schemas.js';
import * as service from './chart-of-accounts.service.js';

const tags = ['Chart of accounts'];

export const chartOfAccountsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/chart-of-accounts',
    {
      config: { scopes: ['chart-of-accounts:read'] },
      schema: {
        tags,
        summary: 'List the chart of accounts',
        description: 'Accounts come in through the CLI import (section `chart_of_accounts`).',
        querystring: ChartOfAccountListQuery,
        response: { 200: List(ChartOfAccount) },
      },
    },
    async (req, reply) =>
      listResponse(
        req,
        reply,
        await service.listChartOfAccounts(app.db, req.auth, req.query),
        service.toChartOfAccount,
      ),
  );

  app.get(
    '/chart-of-accounts/bookings',
    {
      config: { scopes: ['chart-of-accounts:read'] },
      schema: {
        tags,
        summary: 'List bookings on incoming invoices',
        description:
          'Every chart-of-account booking of incoming invoices; the date range applies to the invoice date.',
        querystring: BookingListQuery,
        response: { 200: List(BookingOut) },
      },
    },
    async (req, reply) =>
      listResponse(
        req,
        reply,
        await service.listBookings(app.db, req.auth, req.query),
        service.toChartBooking,
      ),
  );

  app.get(
    '/chart-of-accounts/:id',
    {
      config: { scopes: ['chart-of-accounts:read'] },
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
