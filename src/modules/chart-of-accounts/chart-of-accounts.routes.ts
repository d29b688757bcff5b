import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getRoute, listRoute } from '../../shared/route-builders.js';
import {
  BookingListQuery,
  BookingOut,
  ChartOfAccount,
  ChartOfAccountListQuery,
} from './chart-of-accounts.schemas.js';
import * as service from './chart-of-accounts.service.js';

// The chart is read-only over the API: accounts come from the import.
const read = { tags: ['Chart of accounts'], config: { scopes: ['chart-of-accounts:read'] } };

export const chartOfAccountsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  listRoute(
    app,
    {
      ...read,
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
      ...read,
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

  getRoute(
    app,
    { ...read, path: '/chart-of-accounts/:id', summary: 'Retrieve an account', item: ChartOfAccount },
    service.getChartOfAccount,
  );
};
