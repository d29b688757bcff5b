import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listResponse } from '../../shared/paging.js';
import { createRoute, getRoute } from '../../shared/route-builders.js';
import { Data, IdParams, List } from '../../shared/schemas.js';
import {
  FromEffortsBody,
  Invoice,
  OfferInvoice,
  OfferInvoiceBody,
  ProjectReport,
  TimesheetEntry,
  TimesheetQuery,
  UninvoicedQuery,
  UninvoicedReport,
} from './billing.schemas.js';
import * as service from './billing.service.js';

/**
 * Billing the work. Its routes live under the resources they answer about — an invoice made
 * from efforts or an offer is an outgoing invoice (`/outgoing-invoices/…`, `/offers/{id}/…`), a
 * project's report is the project's (`/projects/{id}/report`) — plus `/reports`: the module
 * owns no URL segment of its own because it owns no resource, only the links between them.
 */
export const billingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  createRoute(
    app,
    {
      path: '/outgoing-invoices/from-efforts',
      tags: ['Outgoing invoices'],
      // Writing the invoice, and reading the efforts it bills (their dates, rates, minutes).
      config: { scopes: ['outgoing-invoice:write', 'efforts:read'] },
      summary: 'Create an invoice from tracked efforts',
      description:
        'An **open** invoice billing the billable, non-admin efforts of a project (`project_id`) or of a client’s time-and-materials projects (`client_id`) dated `date_from` … `date_to` that stand on no invoice (or exactly `effort_ids`). Each effort is rounded up to `rounding_minutes` and priced at its rate (effort > task > team member > project > user > account default); one line per `group_by` key and rate: quantity = minutes / 60 (4 decimals, half up), unit `h`, unit price = the rate. Each line is linked to its efforts (GET /outgoing-invoices/{id}/efforts); deleting the invoice frees them. None left: 422 `nothing_to_bill`. An effort stands on one invoice at most, by a unique key: a concurrent call over the same efforts answers 409 `effort_already_billed` naming them (`effort_ids`). A fixed-price project is billed by its plan: 422. Ids of records that are not the account’s: 422 `invalid_reference`.',
      body: FromEffortsBody,
      response: Invoice,
      location: '/outgoing-invoices',
    },
    service.invoiceFromEfforts,
  );

  app.get(
    '/outgoing-invoices/:id/efforts',
    {
      config: { scopes: ['outgoing-invoice:read', 'efforts:read'] },
      schema: {
        tags: ['Outgoing invoices'],
        summary: 'List the efforts an invoice bills (its timesheet)',
        description:
          'By line (`position`), then date: minutes tracked and billed (rounded), the hourly rate and which level of the rate order gave it (`rate_source`), and the amount (hours × rate, rounded to the cent).',
        params: IdParams,
        querystring: TimesheetQuery,
        response: { 200: List(TimesheetEntry) },
      },
    },
    async (req, reply) =>
      listResponse(
        req,
        reply,
        await service.listInvoiceEfforts(app.db, req.auth, req.params.id, req.query),
        (x) => x,
      ),
  );

  createRoute(
    app,
    {
      path: '/offers/:id/invoice',
      params: IdParams,
      tags: ['Offers'],
      // Creating an invoice from what the offer says; the offer itself keeps its content.
      config: { scopes: ['outgoing-invoice:write', 'offer:read'] },
      summary: 'Create an invoice from an accepted offer',
      description:
        'Once per offer: an open one-time invoice with the offer’s lines (`as: invoice`, default), or a partial-plan master whose final invoice carries them (`as: partial_plan`). Only an accepted offer: else 409 `offer_not_accepted`; a second call: 409 `offer_already_invoiced` (deleting the invoice or plan frees the offer again). `id` is the invoice (the plan’s final invoice), `master_id` the plan.',
      body: OfferInvoiceBody,
      response: OfferInvoice,
      location: '/outgoing-invoices',
    },
    service.invoiceFromOffer,
  );

  getRoute(
    app,
    {
      path: '/projects/:id/report',
      tags: ['Projects'],
      config: { scopes: ['efforts:read', 'outgoing-invoice:read'] },
      summary: 'Profitability of a project',
      description:
        'Budget, tracked minutes (billable / non-billable), billable value at the resolved rates, what was billed and what is not invoiced yet, cost (minutes × the user’s cost rate), invoiced net (booked and open) and margin (invoiced net − cost); by user, task and month as well (their margin: billed value − cost). Each effort is valued as a one-effort invoice line, so totals are the sums of their parts to the cent. Admin time counts with `efforts:extended:read`.',
      item: ProjectReport,
    },
    service.projectReport,
  );

  app.get(
    '/reports/uninvoiced',
    {
      config: { scopes: ['efforts:read', 'outgoing-invoice:read'] },
      schema: {
        tags: ['Projects'],
        summary: 'What is billable and not invoiced yet, per project and client',
        description:
          'Billable, non-admin efforts of time-and-materials projects that stand on no invoice, valued at their resolved rates (each as a one-effort line), optionally dated `date_from` … `date_to`.',
        querystring: UninvoicedQuery,
        response: { 200: Data(UninvoicedReport) },
      },
    },
    async (req) => ({ data: await service.uninvoicedReport(app.db, req.auth, req.query) }),
  );
};
