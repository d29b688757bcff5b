import { type Static, Type } from 'typebox';
import {
  CountryCode,
  CurrencyCode,
  DateString,
  Id,
  Ignored,
  Money,
  Nullable,
  optional,
  SortedPagingQuery,
  Text,
  Timestamp,
  UpdatedSinceQuery,
} from '../../shared/schemas.js';
import { BookingFields, InvoiceDateRange, TaxRate } from '../chart-of-accounts/chart-of-accounts.public.js';

const Amount = { ...Money, minimum: 0, maximum: 1e11 };
const PositiveAmount = { ...Money, exclusiveMinimum: 0, maximum: 1e11 };
const SignedAmount = { ...Money, minimum: -1e11, maximum: 1e11 };

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
  'delivery_date',
  'service_period_start',
  'service_period_end',
  'prepaid_total',
  'amount_due',
  'buyer_reference',
  'supplier_street',
  'supplier_postcode',
  'supplier_city',
  'supplier_country',
  'supplier_tax_number',
  'iban',
  'bic',
  'payment_reference',
  'taxes',
  'line_items',
] as const;

export const TaxEntry = Type.Object(
  {
    rate: TaxRate,
    net: SignedAmount,
    tax: SignedAmount,
    category: Type.Optional(
      Type.String({
        pattern: '^[A-Z]{1,2}$',
        description: 'UNTDID 5305 VAT category (S, Z, E, AE, K, G, O, L, M)',
      }),
    ),
    exemption_reason: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false, description: 'One VAT rate of the document: taxable amount and tax' },
);

export const IncomingLine = Type.Object(
  {
    title: Type.Optional(Type.String({ maxLength: 1000 })),
    description: Type.Optional(Type.String({ maxLength: 10000 })),
    quantity: Type.Optional(Type.Number({ minimum: -1e9, maximum: 1e9, 'x-max-decimals': 4 })),
    unit: Type.Optional(
      Type.String({ maxLength: 64, description: 'UN/ECE Rec. 20 code (HUR, C62) or the printed unit' }),
    ),
    unit_price: Type.Optional(Type.Number({ minimum: -1e11, maximum: 1e11, 'x-max-decimals': 6 })),
    net_total: Type.Optional(SignedAmount),
    tax_rate: Type.Optional(TaxRate),
  },
  { additionalProperties: false, description: 'A line of the document as the supplier wrote it' },
);

const Source = Type.Union(
  [Type.Literal('xml'), Type.Literal('pdf_text'), Type.Literal('ocr'), Type.Literal('request')],
  {
    description:
      '`xml` (e-invoice), `pdf_text` (text layer), `ocr` (scan) or `request` (given by the caller)',
  },
);
export const Extraction = Type.Object(
  {
    status: Type.Union(
      [Type.Literal('pending'), Type.Literal('done'), Type.Literal('failed'), Type.Literal('skipped')],
      {
        description:
          '`pending`: the file is still being read (OCR, large PDF) and its values will be filled in; `done`: read (see `warnings`); `failed`: could not be read; `skipped`: no file, or `file_was_preprocessed`',
      },
    ),
    method: Nullable(
      Type.String({
        description:
          '`ubl`, `cii`, `zugferd1` (an EN 16931 XML, also when embedded in a PDF), `pdf_text` or `ocr`',
      }),
    ),
    warnings: Type.Array(
      Type.Object({
        code: Type.String({
          description:
            'not_an_invoice, malformed_xml, unsupported_format, encrypted_pdf, no_text_layer, pages_truncated, totals_inconsistent, invalid_value, low_confidence, pdf_too_large, xml_doctype, xml_too_large, xml_too_deep, xml_attributes, timeout, out_of_memory, unreadable, ocr_failed',
        }),
        message: Type.String(),
        field: Type.Optional(Type.String()),
      }),
    ),
    fields: Type.Record(
      Type.String(),
      Type.Object({
        source: Source,
        confidence: Type.Number({ minimum: 0, maximum: 1 }),
        derived: Type.Optional(Type.Boolean({ description: 'computed from other values rather than read' })),
      }),
      { description: 'Where each stored document field came from, by field name' },
    ),
  },
  {
    description:
      'Data extraction of the uploaded file: its state, what it could not read, and the origin and certainty of each field',
  },
);

export const Booking = Type.Object(
  {
    id: Id,
    ...BookingFields,
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
  delivery_date: Nullable(DateString),
  service_period_start: Nullable(DateString),
  service_period_end: Nullable(DateString),
  prepaid_total: Nullable({ ...Amount, description: 'Amount paid in advance (BT-113)' }),
  amount_due: Nullable({ ...Amount, description: 'Amount due for payment (BT-115)' }),
  buyer_reference: Nullable(
    Type.String({ maxLength: 200, description: 'Buyer reference, e.g. the Leitweg-ID (BT-10)' }),
  ),
  supplier_street: Text(),
  supplier_postcode: Text(32),
  supplier_city: Text(),
  supplier_country: Nullable(CountryCode),
  supplier_tax_number: Text(64),
  iban: Nullable(
    Type.String({
      maxLength: 42,
      description: 'IBAN of the supplier; its check digits are verified (blanks removed)',
    }),
  ),
  bic: Nullable(Type.String({ maxLength: 16, description: 'BIC (8 or 11 characters)' })),
  payment_reference: Text(),
  taxes: Nullable(Type.Array(TaxEntry, { maxItems: 50, description: 'VAT breakdown per rate (BG-23)' })),
  line_items: Nullable(Type.Array(IncomingLine, { maxItems: 500 })),
};

export const IncomingInvoice = Type.Object(
  {
    id: Id,
    ...documentWritable,
    // Not known while the document is being read (`extraction.status` `pending`): null, not 0.
    currency: Nullable({
      ...CurrencyCode,
      description: 'null while extraction is pending and none was given',
    }),
    net_total: Nullable({
      ...Amount,
      description: 'null while extraction is pending and no total was given',
    }),
    tax_total: Nullable({
      ...Amount,
      description: 'null while extraction is pending and no total was given',
    }),
    gross_total: Nullable({
      ...Amount,
      description: 'null while extraction is pending and no total was given',
    }),
    paid_total: Money,
    open_total: Nullable({ ...Money, description: 'null while the gross total is not known' }),
    payment_status: Type.Enum(['unpaid', 'partially_paid', 'paid'] as const, {
      description: 'As on outgoing invoices: from the payments and credit offsets recorded on it',
    }),
    payment_in_transit: Nullable({
      ...Id,
      description:
        'The SEPA credit transfer (POST /sepa/credit-transfers) that pays it, until a bank statement line with its end-to-end id confirms the payment; null otherwise',
    }),
    status: Status,
    file_id: Nullable(Id),
    file_md5: Nullable(Type.String()),
    file_was_preprocessed: Type.Boolean(),
    extracted_fields: Type.Array(Type.String(), {
      description: 'Fields whose value came from data extraction of the uploaded file',
    }),
    extraction: Extraction,
    source: Type.Object(
      {
        kind: Type.Union([Type.Literal('api'), Type.Literal('mailbox')]),
        mailbox_id: Type.Optional(Nullable(Id)),
        message_id: Type.Optional(Type.String()),
        sender: Type.Optional(Nullable(Type.String())),
        subject: Type.Optional(Nullable(Type.String())),
      },
      {
        description:
          'How the document came in: `api` (created or uploaded through the API), or `mailbox` with the mailbox (null once deleted), the message id, sender and subject of the e-mail',
      },
    ),
    // Unbounded in answers: what a document says is shown as read (the bounds are for input),
    // and a value outside them must not make the answer fail.
    taxes: Nullable(
      Type.Array(
        Type.Object({
          rate: Type.Number(),
          net: Type.Number(),
          tax: Type.Number(),
          category: Type.Optional(Type.String()),
          exemption_reason: Type.Optional(Type.String()),
        }),
        { description: 'VAT breakdown per rate (BG-23)' },
      ),
    ),
    line_items: Nullable(
      Type.Array(
        Type.Object({
          title: Type.Optional(Type.String()),
          description: Type.Optional(Type.String()),
          quantity: Type.Optional(Type.Number()),
          unit: Type.Optional(Type.String()),
          unit_price: Type.Optional(Type.Number()),
          net_total: Type.Optional(Type.Number()),
          tax_rate: Type.Optional(Type.Number()),
        }),
        { description: 'The lines of the document as the supplier wrote them' },
      ),
    ),
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
  {
    ...optional(documentWritable),
    status: Type.Optional(WritableStatus),
    // Read-only here (the specification: bookings are untouched): accepted so a client may send
    // back what it read.
    // Nullable: an anyOf, so Ajv checks the type before x-ignored removes the value.
    bookings: Ignored(
      Nullable(Type.Array(Type.Unknown(), { maxItems: 1000 })),
      'Accepted and ignored (the answer’s `bookings` sent back): bookings are created with the document and changed through /incoming-invoices/{invoiceId}/bookings/{bookingId}',
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type IncomingInvoiceUpdate = Static<typeof IncomingInvoiceUpdate>;

export const IncomingInvoiceListQuery = Type.Object(
  {
    ...SortedPagingQuery(['date', 'due_date', 'supplier_id', 'status']),
    ...UpdatedSinceQuery,
    document_type: Type.Optional(DocumentType),
    supplier_id: Type.Optional(Id),
    status: Type.Optional(Status),
    ...InvoiceDateRange,
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
