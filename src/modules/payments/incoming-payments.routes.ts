import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { IncomingCreditCreate, IncomingPaymentCreate } from './incoming-payments.schemas.js';
import * as service from './incoming-payments.service.js';
import { paymentPost } from './payments.routes.js';
import { Payment } from './payments.schemas.js';

export const incomingPaymentsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  paymentPost(
    app,
    {
      path: '/payments/incoming-invoice',
      summary: 'Record a payment of incoming invoices',
      description:
        'One payment split over one or more incoming documents (`invoices`, or `incoming_invoice_id` for one). The shares must sum to `amount`; no document may be paid beyond its gross total (422). Paid documents get status `paid`. Answers the payment as GET /payments/{id} (its `Location`) does: type `incoming_invoice`, the documents and shares in `incoming_invoices`.',
      body: IncomingPaymentCreate,
      response: Payment,
    },
    service.createPayment,
  );

  paymentPost(
    app,
    {
      path: '/payments/incoming-invoice-credit',
      summary: 'Set an incoming credit off against an incoming invoice',
      description:
        'A reference booking between a document of type `Invoice` and one of type `Credit`: both paid totals rise by `amount`, which may not exceed the open amount of either (422). Answers the payment as GET /payments/{id} (its `Location`) does: type `incoming_invoice_credit`, the invoice and the credit each with the amount in `incoming_invoices`.',
      body: IncomingCreditCreate,
      response: Payment,
    },
    service.createCreditOffset,
  );
};
