import { type Static, Type } from 'typebox';
import { DateString, Id, Money, Nullable, PagingQuery, Timestamp } from '../../shared/schemas.js';

export const ACCOUNT_TYPES = ['expense', 'revenue', 'asset', 'liability'] as const;
export const AccountType = Type.Union(
  ACCOUNT_TYPES.map((t) => Type.Literal(t)),
  { description: 'expense, revenue, asset or liability' },
);
export const TaxRate = Type.Number({
  minimum: 0,
  maximum: 100,
  multipleOf: 0.01,
  description: 'Percentage, e.g. 19, 7 or 0',
});

export const ChartOfAccount = Type.Object(
  {
    id: Id,
    number: Type.String({ description: 'Account number, e.g. "4930"' }),
    name: Type.String(),
    type: AccountType,
    tax_rate: Nullable(TaxRate),
    active: Type.Boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'ChartOfAccount' },
);
export type ChartOfAccount = Static<typeof ChartOfAccount>;

export const ChartOfAccountListQuery = Type.Object(
  {
    ...PagingQuery,
    number: Type.Optional(Type.String({ maxLength: 32, description: 'Exact account number' })),
    type: Type.Optional(AccountType),
    q: Type.Optional(
      Type.String({ maxLength: 255, description: 'Case-insensitive match on number or name' }),
    ),
  },
  { additionalProperties: false },
);
export type ChartOfAccountListQuery = Static<typeof ChartOfAccountListQuery>;

/**
 * What a booking on an incoming invoice says, in the order every answer lists it: this list's
 * and the incoming invoice's own (`IncomingInvoiceBooking`).
 */
export const BookingFields = {
  chart_of_account_id: Id,
  cost_center: Nullable(Type.String()),
  amount: Money,
  tax_rate: Nullable(TaxRate),
  description: Nullable(Type.String()),
};

export const BookingOut = Type.Object(
  {
    id: Id,
    incoming_invoice_id: Id,
    ...BookingFields,
    date: Nullable(DateString),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'ChartOfAccountBooking', description: 'A booking on an incoming invoice, with the invoice date' },
);
export type BookingOut = Static<typeof BookingOut>;

/** Filters on the date of incoming invoices (their bookings are listed by it too). */
export const InvoiceDateRange = {
  date_from: Type.Optional(Type.String({ format: 'date', description: 'Invoice date on or after' })),
  date_to: Type.Optional(Type.String({ format: 'date', description: 'Invoice date on or before' })),
};

export const BookingListQuery = Type.Object(
  {
    ...PagingQuery,
    chart_of_account_id: Type.Optional(Id),
    incoming_invoice_id: Type.Optional(Id),
    ...InvoiceDateRange,
  },
  { additionalProperties: false },
);
export type BookingListQuery = Static<typeof BookingListQuery>;
