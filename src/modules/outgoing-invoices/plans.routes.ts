import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createRoute } from '../../shared/route-builders.js';
import { Data, IdParams } from '../../shared/schemas.js';
import {
  Invoice,
  Master,
  PartialPlanCreate,
  PlanInvoiceCreate,
  RecurringPlanCreate,
} from './invoices.schemas.js';
import * as plans from './plans.service.js';

const tags = ['Outgoing invoices'];
const write = { scopes: ['outgoing-invoice:write'] };

export const plansRoutes: FastifyPluginAsyncTypebox = async (app) => {
  createRoute(
    app,
    {
      path: '/outgoing-invoices/recurring-plans',
      tags,
      config: write,
      summary: 'Create a recurring-plan master',
      description:
        '`type` recurringN: one invoice every N months from `plan_start`; every period starting on or before `plan_end` gets one. Child invoices are not created here: see POST …/{id}/generate, or set `auto_generate` and the service makes each on its date, and with `auto_send` books and e-mails it too (docs/outgoing-invoices.md, plans that run themselves).',
      body: RecurringPlanCreate,
      response: Master,
      location: '/outgoing-invoices/master',
    },
    plans.createRecurringPlan,
  );

  app.post(
    '/outgoing-invoices/:id/generate',
    {
      config: write,
      schema: {
        tags,
        summary: 'Generate the child invoices of a recurring plan',
        description:
          'One open invoice per interval of the plan span: the period starts on the plan start day shifted by whole intervals (clamped to month ends, never drifting) and ends the day before the next; the invoice date is the period start. Re-running brings children that are still `open` up to the master’s current lines and header; `bookable`, booked and deleted children are left alone and their periods are never generated twice. Open children outside a shortened span are deleted. With `auto_generate` the plan’s scheduler takes the invoices made here on their dates and makes none of those periods again.',
        params: IdParams,
        response: { 200: Data(Master) },
      },
    },
    async (req) => ({ data: await plans.generateChildren(app.db, req.auth, req.params.id) }),
  );

  createRoute(
    app,
    {
      path: '/outgoing-invoices/partial-plans',
      tags,
      config: write,
      summary: 'Create a partial-plan master and its final invoice',
      description:
        'One transaction. The given `line_items` are the plan’s positions and attach to the final invoice, which shows the plan total and deducts every booked deposit, partial and credit invoice of the plan (net and tax per rate).',
      body: PartialPlanCreate,
      response: Master,
      location: '/outgoing-invoices/master',
    },
    plans.createPartialPlan,
  );

  createRoute(
    app,
    {
      path: '/outgoing-invoices/:id/plan-invoices',
      tags,
      config: write,
      summary: 'Add a deposit, partial or credit invoice to a partial plan',
      description:
        'Deposit: lump-sum `value`. Partial: `value` and/or `line_items`. Credit: `value` (credited, i.e. negative lines). Lump sums are net and are split over the plan’s tax rates in proportion to their net amounts. The plan never invoices more than its total (422); once the final invoice is booked the plan is closed (409).',
      params: IdParams,
      body: PlanInvoiceCreate,
      response: Invoice,
      location: '/outgoing-invoices',
    },
    (db, auth, body, params) => plans.addPlanInvoice(db, auth, params.id, body),
  );
};
