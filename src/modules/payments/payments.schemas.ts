import { type Static, Type } from 'typebox';
import { DateString, Id, Nullable, PagingQuery, Timestamp, UpdatedSinceQuery } from '../../shared/schemas.js';
import { Amount } from '../outgoing-invoices/line-items.js';

export const PAYMENT_ACCOUNT_TYPES = ['bank', 'cash', 'paypal', 'other'] as const;
export const PAYMENT_TYPES = ['outgoing_invoice', 'outgoing_invoice_credit'] as const;

export const PaymentAccount = Type.Object(
  {
    id: Id,
    name: Type.String(),
    type: Type.Enum(PAYMENT_ACCOUNT_TYPES),
    iban: Nullable(Type.String()),
    bic: Nullable(Type.String()),
    bank_name: Nullable(Type.String()),
    currency: Type.String(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'PaymentAccount' },
);
export type PaymentAccount = Static<typeof PaymentAccount>;

export const PaymentAccountListQuery = Type.Object(
  { ...PagingQuery, ...UpdatedSinceQuery, type: Type.Optional(Type.Enum(PAYMENT_ACCOUNT_TYPES)) },
  { additionalProperties: false },
);
export type PaymentAccountListQuery = Static<typeof PaymentAccountListQuery>;

export const Payment = Type.Object(
  {
    id: Id,
    type: Type.Enum(PAYMENT_TYPES, {
      description: 'outgoing_invoice: money received; outgoing_invoice_credit: a credit settling an invoice',
    }),
    invoice_id: Id,
    credit_id: Nullable(Id),
    payment_account_id: Nullable(Id),
    amount: Amount,
    currency: Type.String(),
    date: DateString,
    description: Nullable(Type.String()),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Payment' },
);
export type Payment = Static<typeof Payment>;

const InvoicePaymentState = Type.Object({
  id: Id,
  paid_total: Amount,
  open_total: Amount,
  payment_status: Type.Enum(['unpaid', 'partially_paid', 'paid'] as const),
});

export const PaymentCreated = Type.Object({
  ...Payment.properties,
  invoice: Type.Object(InvoicePaymentState.properties, {
    description: 'The invoice’s payment state after this payment',
  }),
});
export type PaymentCreated = Static<typeof PaymentCreated>;

export const PaymentListQuery = Type.Object(
  {
    ...PagingQuery,
    ...UpdatedSinceQuery,
    id: Type.Optional(Id),
    type: Type.Optional(Type.Enum(PAYMENT_TYPES)),
    invoice_id: Type.Optional(Id),
    credit_id: Type.Optional(Id),
    payment_account_id: Type.Optional(Id),
    date_from: Type.Optional(DateString),
    date_to: Type.Optional(DateString),
  },
  { additionalProperties: false },
);
export type PaymentListQuery = Static<typeof PaymentListQuery>;

export const OutgoingPaymentCreate = Type.Object(
  {
    invoice_id: Id,
    amount: Type.Number({
      exclusiveMinimum: 0,
      maximum: 1e11,
      description: 'Received amount in the invoice currency, at most two decimals; at most the open amount',
    }),
    date: DateString,
    payment_account_id: Id,
    description: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  },
  { additionalProperties: false },
);
export type OutgoingPaymentCreate = Static<typeof OutgoingPaymentCreate>;

export const CreditAssociationCreate = Type.Object(
  {
    invoice_id: Id,
    credit_id: Id,
    date: Type.Optional(DateString),
  },
  { additionalProperties: false },
);
export type CreditAssociationCreate = Static<typeof CreditAssociationCreate>;
