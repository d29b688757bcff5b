import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static, TSchema } from 'typebox';
import type { Db } from '../../db/index.js';
import type { AuthContext } from '../../plugins/auth.js';
import {
  type App,
  type CreateRouteSpec,
  createRoute,
  getRoute,
  listRoute,
  updateRoute,
} from '../../shared/route-builders.js';
import { problemResponse } from '../../shared/schemas.js';
import {
  CreditAssociationCreate,
  OutgoingPaymentCreate,
  Payment,
  PaymentAccount,
  PaymentAccountCreate,
  PaymentAccountListQuery,
  PaymentAccountUpdate,
  PaymentCreated,
  PaymentListQuery,
  PaymentParams,
} from './payments.schemas.js';
import * as service from './payments.service.js';

const tags = ['Payments'];

/**
 * A POST that records a payment of any kind: 201 with the payment, whose `Location` is its
 * place in the one ledger (GET /payments/{id}).
 */
export function paymentPost<B extends TSchema, R extends TSchema>(
  app: App,
  s: Pick<CreateRouteSpec<B, R>, 'path' | 'summary' | 'description' | 'body' | 'response'>,
  record: (db: Db, auth: AuthContext, body: Static<B>) => Promise<Static<R> & { id: number }>,
): void {
  createRoute<B, R>(
    app,
    { ...s, tags, config: { scopes: ['payments:write'] }, location: '/payments' },
    record,
  );
}

export const paymentsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  listRoute(
    app,
    {
      path: '/payment-accounts',
      tags,
      config: { scopes: ['payments:read'] },
      summary: 'List payment accounts',
      description:
        'Bank and cash accounts payments are received on (created through the import or POST /payment-accounts). `iban`, `bic` and `currency` name the bank account whose statements POST /bank-statements reads.',
      querystring: PaymentAccountListQuery,
      item: PaymentAccount,
    },
    service.listPaymentAccounts,
    service.toPaymentAccount,
  );

  const conflict = { 409: problemResponse('`already_exists`: another payment account has this IBAN') };
  createRoute(
    app,
    {
      path: '/payment-accounts',
      tags,
      config: { scopes: ['banking:write'] },
      summary: 'Create a payment account',
      description:
        'Beyond the specification (issue 40). IBAN and BIC are checked (422) and stored in their electronic form (no spaces, upper case); an IBAN belongs to one payment account of the account (409 `already_exists`).',
      body: PaymentAccountCreate,
      response: PaymentAccount,
      location: '/payment-accounts',
      responses: conflict,
    },
    service.createPaymentAccount,
  );

  updateRoute(
    app,
    {
      path: '/payment-accounts/:id',
      tags,
      config: { scopes: ['banking:write'] },
      summary: 'Update a payment account',
      description:
        'Beyond the specification (issue 40): changes the given fields, checked as on creation (422, 409 `already_exists`).',
      body: PaymentAccountUpdate,
      item: PaymentAccount,
      responses: conflict,
    },
    service.updatePaymentAccount,
  );

  listRoute(
    app,
    {
      path: '/payments',
      tags,
      config: { scopes: ['payments:read'] },
      summary: 'List payments',
      description:
        'The one payments ledger: payments of all four kinds (`type`: money received for outgoing invoices, outgoing credits settling them, money paid for incoming invoices, incoming credits set off against them), in one id space, ordered by id. Filters: `type`, `outgoing_invoice_id` (as invoice or settling credit), `invoice_id`, `credit_id`, `incoming_invoice_id` (any share on it), `payment_account_id`, and `date_from`/`date_to` on the payment date.',
      querystring: PaymentListQuery,
      item: Payment,
    },
    service.listPayments,
  );

  getRoute(
    app,
    {
      path: '/payments/:id',
      tags,
      config: { scopes: ['payments:read'] },
      summary: 'Read one payment',
      description:
        'Beyond the specification (which only lists payments): one payment of any kind by the id every payment-creating POST answers with (its `Location`).',
      params: PaymentParams,
      item: Payment,
    },
    service.getPayment,
  );

  paymentPost(
    app,
    {
      path: '/payments/outgoing-invoice',
      summary: 'Record a payment for an outgoing invoice',
      description:
        'The invoice must be booked and not a credit; the amount (in the invoice currency) may not exceed its open amount (422). Answers the payment with the invoice’s new payment state.',
      body: OutgoingPaymentCreate,
      response: PaymentCreated,
    },
    service.recordPayment,
  );

  paymentPost(
    app,
    {
      path: '/payments/outgoing-invoice-credit',
      summary: 'Settle an outgoing invoice with an outgoing credit',
      description:
        'Both booked, same client and currency. The credit’s full amount counts as paid on the invoice (422 if it exceeds the open amount); a credit settles one invoice once (409 after that).',
      body: CreditAssociationCreate,
      response: PaymentCreated,
    },
    service.associateCredit,
  );
};
