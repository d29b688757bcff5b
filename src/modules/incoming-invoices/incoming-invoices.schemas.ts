import { type Static, Type } from 'typebox';
import {
  CurrencyCode,
  DateString,
  Id,
  Money,
  Nullable,
  optional,
  PagingQuery,
  Timestamp,
  UpdatedSinceQuery,
} from '../../shared/schemas.js';
import { TaxRate } from '../chart-of-accounts/chart-of-accounts.schemas.js';

const Text = (max = 255) => Nullable(Type.String({ maxLength: max }));
const Amount = { ...Money, minimum: 0, maximum: 1e11 };
const PositiveAmount = { ...Money, exclusiveMinimum: 0, maximum: 1e11 };

export const DocumentType = Type.Union([Type.Literal('Invoice'), Type.Literal('Credit')]);
export const STATUSES = ['open', 'approved', 'paid'] as const;
export const Status = Type.Union(
  STATUSES.map((s) => Type.Literal(s)),
  { description: '`open` (new), `approved` (checked, ready to pay) or `paid` (set when fully paid)' },
);
export const EXTRACTABLE = [
  'document_type',
  'invoice_number',
  'date',
  'due_date',
  'currency',
  'net_total',
  'tax_total',
  'gross_total',
  'supplier_id',
  'supplier_name',
  'supplier_vat_id',
] as const;

export const Booking = Type.Object(
  {
    id: Id,
    chart_of_account_id: Id,
    cost_center: Nullable(Type.String()),
    amount: Money,
    tax_rate: Nullable(TaxRate),
    description: Nullable(Type.String()),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'IncomingInvoiceBooking' },
);
export type Booking = Static<typeof Booking>;

const bookingWritable = {
  chart_of_account_id: Id,
  cost_center: Text(),
  amount: PositiveAmount,
  tax_rate: Nullable(TaxRate),
  description: Text(2000),
};
export const BookingCreate = Type.Object(
  {
    ...optional(bookingWritable),
    amount: PositiveAmount,
  },
  {
    additionalProperties: false,
    description:
      '`chart_of_account_id` defaults to the supplier’s default account; `tax_rate` to the account’s.',
  },
);
export type BookingCreate = Static<typeof BookingCreate>;
export const BookingUpdate = Type.Object(optional(bookingWritable), {
  additionalProperties: false,
  minProperties: 1,
});
export type BookingUpdate = Static<typeof BookingUpdate>;
export const BookingParams = Type.Object({ invoiceId: Id, bookingId: Id });

const documentWritable = {
  document_type: DocumentType,
  supplier_id: Nullable(Id),
  supplier_name: Text(),
  supplier_vat_id: Text(64),
  invoice_number: Text(),
  date: Nullable(DateString),
  due_date: Nullable(DateString),
  currency: CurrencyCode,
  net_total: Amount,
  tax_total: Amount,
  gross_total: Amount,
  description: Text(10000),
};

export const IncomingInvoice = Type.Object(
  {
    id: Id,
    ...documentWritable,
    paid_total: Money,
    open_total: Money,
    payment_status: Type.Enum(['unpaid', 'partially_paid', 'paid'] as const, {
      description: 'As on outgoing invoices: from the payments and credit offsets recorded on it',
    }),
    status: Status,
    file_id: Nullable(Id),
    file_md5: Nullable(Type.String()),
    file_was_preprocessed: Type.Boolean(),
    extracted_fields: Type.Array(Type.String(), {
      description: 'Fields whose value came from data extraction of the uploaded file',
    }),
    bookings: Type.Array(Booking),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'IncomingInvoice' },
);
export type IncomingInvoice = Static<typeof IncomingInvoice>;

const WritableStatus = Type.Union([Type.Literal('open'), Type.Literal('approved')], {
  description: '`paid` is set by payments, not written',
});

export const IncomingInvoiceCreate = Type.Object(
  {
    ...optional(documentWritable),
    status: Type.Optional(WritableStatus),
    file_was_preprocessed: Type.Optional(
      Type.Boolean({ description: 'true: the file was already processed elsewhere; skip data extraction' }),
    ),
    bookings: Type.Optional(Type.Array(BookingCreate, { maxItems: 200 })),
  },
  { additionalProperties: false },
);
export type IncomingInvoiceCreate = Static<typeof IncomingInvoiceCreate>;

export const IncomingInvoiceUpdate = Type.Object(
  { ...optional(documentWritable), status: Type.Optional(WritableStatus) },
  { additionalProperties: false, minProperties: 1 },
);
export type IncomingInvoiceUpdate = Static<typeof IncomingInvoiceUpdate>;

export const IncomingInvoiceListQuery = Type.Object(
  {
    ...PagingQuery,
    ...UpdatedSinceQuery,
    document_type: Type.Optional(DocumentType),
    supplier_id: Type.Optional(Id),
    status: Type.Optional(Status),
    date_from: Type.Optional(Type.String({ format: 'date', description: 'Invoice date on or after' })),
    date_to: Type.Optional(Type.String({ format: 'date', description: 'Invoice date on or before' })),
  },
  { additionalProperties: false },
);
export type IncomingInvoiceListQuery = Static<typeof IncomingInvoiceListQuery>;

export const DuplicateCheckJson = Type.Object(
  { md5: Type.String({ pattern: '^[0-9a-fA-F]{32}$', description: 'MD5 of the file, 32 hex digits' }) },
  { additionalProperties: false },
);
export const DuplicateCheckResult = Type.Object({
  duplicate: Type.Boolean(),
  md5: Type.String(),
  matches: Type.Array(
    Type.Object({
      id: Id,
      document_type: DocumentType,
      invoice_number: Nullable(Type.String()),
      supplier_id: Nullable(Id),
      date: Nullable(DateString),
      file_id: Nullable(Id),
      created_at: Timestamp,
    }),
  ),
});

/** Documented multipart bodies; parsed by receiveUpload, not by the schema compiler. */
export const multipartBody = (fields: Record<string, unknown>) => ({
  'multipart/form-data': {
    schema: { type: 'object', 'x-multipart': true, properties: fields },
  },
});
