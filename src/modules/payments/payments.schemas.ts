import { type Static, Type } from 'typebox';
import {
  CurrencyCode,
  DateString,
  Id,
  Nullable,
  PagingQuery,
  Timestamp,
  UpdatedSinceQuery,
} from '../../shared/schemas.js';
import { Amount } from '../outgoing-invoices/outgoing-invoices.public.js';

export const PAYMENT_ACCOUNT_TYPES = ['bank', 'cash', 'paypal', 'other'] as const;
export const PAYMENT_TYPES = [
  'outgoing_invoice',
  'outgoing_invoice_credit',
  'incoming_invoice',
  'incoming_invoice_credit',
] as const;

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

/** Fields of a payment account a caller writes (issue 40). */
const accountWritable = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  type: Type.Enum(PAYMENT_ACCOUNT_TYPES, { description: 'Default `bank`' }),
  iban: Nullable(
    Type.String({
      minLength: 15,
      maxLength: 42,
      description:
        'IBAN (spaces allowed, stored without); checked (country length, check digits). Statements are assigned to the account by it; unique within the account',
    }),
  ),
  bic: Nullable(Type.String({ minLength: 8, maxLength: 11, description: 'BIC (ISO 9362), checked' })),
  bank_name: Nullable(Type.String({ maxLength: 255 })),
  currency: { ...CurrencyCode, description: 'ISO 4217 code; default `EUR`' },
};

export const PaymentAccountCreate = Type.Object(
  {
    name: accountWritable.name,
    type: Type.Optional(accountWritable.type),
    iban: Type.Optional(accountWritable.iban),
    bic: Type.Optional(accountWritable.bic),
    bank_name: Type.Optional(accountWritable.bank_name),
    currency: Type.Optional(accountWritable.currency),
  },
  { additionalProperties: false },
);
export type PaymentAccountCreate = Static<typeof PaymentAccountCreate>;

export const PaymentAccountUpdate = Type.Object(
  {
    name: Type.Optional(accountWritable.name),
    type: Type.Optional(accountWritable.type),
    iban: Type.Optional(accountWritable.iban),
    bic: Type.Optional(accountWritable.bic),
    bank_name: Type.Optional(accountWritable.bank_name),
    currency: Type.Optional(accountWritable.currency),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type PaymentAccountUpdate = Static<typeof PaymentAccountUpdate>;

export const PaymentAccountListQuery = Type.Object(
  { ...PagingQuery, ...UpdatedSinceQuery, type: Type.Optional(Type.Enum(PAYMENT_ACCOUNT_TYPES)) },
  { additionalProperties: false },
);
export type PaymentAccountListQuery = Static<typeof PaymentAccountListQuery>;

const IncomingShare = Type.Object({ incoming_invoice_id: Id, amount: Amount });

export const Payment = Type.Object(
  {
    id: Id,
    type: Type.Enum(PAYMENT_TYPES, {
      description:
        '`outgoing_invoice`: money received for an outgoing invoice (POST /payments/outgoing-invoice); `outgoing_invoice_credit`: an outgoing credit settling an invoice (…/outgoing-invoice-credit); `incoming_invoice`: money paid for incoming invoices (…/incoming-invoice); `incoming_invoice_credit`: an incoming credit set off against an incoming invoice (…/incoming-invoice-credit)',
    }),
    invoice_id: Nullable({
      ...Id,
      description: 'The outgoing invoice paid or settled (outgoing kinds; null otherwise)',
    }),
    credit_id: Nullable({
      ...Id,
      description: 'The outgoing credit that settles it (`outgoing_invoice_credit`)',
    }),
    incoming_invoices: Type.Array(IncomingShare, {
      description:
        'Incoming kinds: the incoming documents and the share of each (for a credit offset the invoice and the credit, each with the amount); empty for outgoing kinds',
    }),
    payment_account_id: Nullable(Id),
    amount: Amount,
    currency: Type.String(),
    date: DateString,
    description: Nullable(Type.String()),
    bank_transaction_id: Nullable({
      ...Id,
      description:
        'The bank statement line (GET /bank-transactions/{id}) whose match recorded this payment; null when recorded by hand',
    }),
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
    invoice_id: Type.Optional({ ...Id, description: 'Outgoing payments of this outgoing invoice' }),
    outgoing_invoice_id: Type.Optional({
      ...Id,
      description: 'Payments of this outgoing invoice or credit (as the invoice or as the settling credit)',
    }),
    incoming_invoice_id: Type.Optional({
      ...Id,
      description: 'Payments and credit offsets with a share on this incoming invoice or credit',
    }),
    credit_id: Type.Optional(Id),
    payment_account_id: Type.Optional(Id),
    date_from: Type.Optional(DateString),
    date_to: Type.Optional(DateString),
  },
  { additionalProperties: false },
);
export type PaymentListQuery = Static<typeof PaymentListQuery>;

export const PaymentParams = Type.Object({ id: Id });

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
