import { type Static, Type } from 'typebox';
import {
  CurrencyCode,
  DateString,
  Id,
  Nullable,
  optional,
  PagingQuery,
  SortedPagingQuery,
  Text,
  Timestamp,
  UpdatedSinceQuery,
} from '../../shared/schemas.js';
import { EXEMPTION_CATEGORIES } from './booking.domain.js';
import { INVOICE_TYPES, MASTER_TYPES, RECURRING_TYPES, STATUSES } from './invoices.domain.js';
import { Amount, LineItem, LineItemInput, LineItemsInput, MoneyInput, TotalsProps } from './line-items.js';
import { RUN_STATE_TEXT, RUN_STATES } from './plans.domain.js';

const Enum = <const T extends string[]>(values: readonly [...T], description?: string) =>
  Type.Enum(values, description ? { description } : {});

export const InvoiceType = Enum(INVOICE_TYPES);
export const WritableStatus = Enum(['open', 'bookable'] as const, 'open (default) or bookable');

/** Header fields every document and plan shares, all optional on input. */
const header = {
  client_id: Nullable(Id),
  contact_id: Nullable(Id),
  project_id: Nullable(Id),
  title: Text(),
  payment_term_days: Nullable(Type.Integer({ minimum: 0, maximum: 3650 })),
  currency: CurrencyCode,
  intro_text: Text(10000),
  closing_text: Text(10000),
};
const dates = {
  date: Nullable(DateString),
  due_date: Nullable(DateString),
  service_period_start: Nullable(DateString),
  service_period_end: Nullable(DateString),
};

/** What makes a document legally complete beyond its header: BT-10 and the reason for 0 % VAT. */
const legal = {
  buyer_reference: Nullable(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'Buyer reference of the e-invoice (BT-10), e.g. a Leitweg-ID; null: the client’s',
    }),
  ),
  tax_exemption_category: Nullable(
    Enum(
      EXEMPTION_CATEGORIES,
      'Why the 0 % lines carry no VAT (UNTDID 5305): AE reverse charge, K intra-community supply, G export outside the EU, E exempt, Z zero rated, O not subject to VAT. Required to book a document with 0 % lines.',
    ),
  ),
  tax_exemption_reason_code: Nullable(
    Type.String({
      pattern: '^VATEX-[A-Z0-9-]{1,24}$',
      maxLength: 30,
      description: 'VATEX code (BT-121), e.g. VATEX-EU-AE; default for AE, K, G and O: the category’s',
    }),
  ),
  tax_exemption_reason: Nullable(
    Type.String({
      minLength: 1,
      maxLength: 1000,
      description:
        'Printed and sent as BT-120, e.g. "Kleinunternehmer gemäß § 19 UStG"; required for E; default for the others: a standard sentence',
    }),
  ),
};

export const InvoiceCreate = Type.Object(
  {
    type: Type.Optional(Enum(['invoice', 'credit'] as const, 'invoice (default) or credit')),
    status: Type.Optional(WritableStatus),
    ...optional(header),
    ...optional(dates),
    credited_invoice_id: Type.Optional(Nullable(Id)),
    ...optional(legal),
    line_items: Type.Optional(LineItemsInput),
  },
  { additionalProperties: false },
);
export type InvoiceCreate = Static<typeof InvoiceCreate>;

/** Recurring plans that run themselves (docs/outgoing-invoices.md#plans-that-run-themselves). */
const autoInput = {
  auto_generate: Type.Optional(
    Type.Boolean({
      description:
        'Recurring plans: the service makes each period’s invoice on its date (default false); periods that ended before it was turned on are left alone',
    }),
  ),
  auto_send: Type.Optional(
    Type.Boolean({
      description:
        'Recurring plans: each invoice the plan makes is also booked and e-mailed on its date (default false); needs auto_generate (422 otherwise)',
    }),
  ),
};

export const InvoiceUpdate = Type.Object(
  {
    status: Type.Optional(WritableStatus),
    ...optional(header),
    ...optional(dates),
    credited_invoice_id: Type.Optional(Nullable(Id)),
    plan_start: Type.Optional(DateString),
    plan_end: Type.Optional(DateString),
    ...autoInput,
    ...optional(legal),
    line_items: Type.Optional(LineItemsInput),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type InvoiceUpdate = Static<typeof InvoiceUpdate>;

export const BookBody = Type.Object(
  {
    invoice_number: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        pattern: '^\\S(.*\\S)?$',
        description: 'Manual mode: book with exactly this number. Omit it for automatic numbering.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type BookBody = Static<typeof BookBody>;

export const ExternalInvoiceData = Type.Object(
  {
    type: Type.Optional(Enum(['invoice', 'credit'] as const)),
    invoice_number: Type.String({ minLength: 1, maxLength: 64, pattern: '^\\S(.*\\S)?$' }),
    ...optional(header),
    ...optional(dates),
    client_id: Id,
    date: DateString,
    credited_invoice_id: Type.Optional(Nullable(Id)),
    ...optional(legal),
    line_items: Type.Array(LineItemInput, { minItems: 1, maxItems: 500 }),
  },
  { additionalProperties: false },
);
export type ExternalInvoiceData = Static<typeof ExternalInvoiceData>;

export const RecurringPlanCreate = Type.Object(
  {
    type: Enum(RECURRING_TYPES, 'recurringN: one invoice every N months'),
    ...optional(header),
    client_id: Id,
    plan_start: DateString,
    plan_end: DateString,
    ...autoInput,
    line_items: Type.Array(LineItemInput, { minItems: 1, maxItems: 500 }),
  },
  { additionalProperties: false },
);
export type RecurringPlanCreate = Static<typeof RecurringPlanCreate>;

export const PartialPlanCreate = Type.Object(
  {
    ...optional(header),
    client_id: Id,
    ...optional(dates),
    line_items: Type.Array(LineItemInput, {
      minItems: 1,
      maxItems: 500,
      description: "The plan's positions; they attach to the final invoice",
    }),
  },
  { additionalProperties: false },
);
export type PartialPlanCreate = Static<typeof PartialPlanCreate>;

export const PlanInvoiceCreate = Type.Object(
  {
    type: Enum(['deposit', 'partial', 'credit'] as const),
    value: Type.Optional(
      MoneyInput(
        'Lump sum, net, greater than zero; split over the plan’s tax rates in proportion to their net amounts. A credit credits this amount (its lines are negative).',
      ),
    ),
    line_items: Type.Optional(LineItemsInput),
    status: Type.Optional(WritableStatus),
    ...optional(pickHeader()),
    ...optional(dates),
  },
  { additionalProperties: false },
);
export type PlanInvoiceCreate = Static<typeof PlanInvoiceCreate>;

function pickHeader() {
  const { title, intro_text, closing_text } = header;
  return { title, intro_text, closing_text };
}

export const InvoiceListQuery = Type.Object(
  {
    ...SortedPagingQuery(['date', 'invoice_number', 'status', 'type', 'client_id']),
    ...UpdatedSinceQuery,
    status: Type.Optional(Enum(STATUSES)),
    type: Type.Optional(InvoiceType),
    client_id: Type.Optional(Id),
    contact_id: Type.Optional(Id),
    project_id: Type.Optional(Id),
    master_id: Type.Optional(Id),
    invoice_number: Type.Optional(Type.String({ maxLength: 64 })),
    date_from: Type.Optional(DateString),
    date_to: Type.Optional(DateString),
    deleted: Type.Optional(
      Type.Boolean({
        description: 'true: soft-deleted invoices (DELETE, DELETE …/force) are listed too, with `deleted_at`',
      }),
    ),
  },
  { additionalProperties: false },
);
export type InvoiceListQuery = Static<typeof InvoiceListQuery>;

export const MasterListQuery = Type.Object(
  {
    ...PagingQuery,
    ...UpdatedSinceQuery,
    type: Type.Optional(Enum(MASTER_TYPES)),
    client_id: Type.Optional(Id),
    project_id: Type.Optional(Id),
  },
  { additionalProperties: false },
);
export type MasterListQuery = Static<typeof MasterListQuery>;

const PaymentStatus = Enum(['unpaid', 'partially_paid', 'paid'] as const);

export const Deduction = Type.Object({
  invoice_id: Id,
  type: Type.String(),
  invoice_number: Nullable(Type.String()),
  date: Nullable(DateString),
  ...TotalsProps,
});

/** A dunning letter of the invoice, in short (GET /dunnings/{id} answers it whole). */
export const InvoiceDunning = Type.Object({
  id: Id,
  number: Type.String({ description: 'MA-{YYYY}-{NNNNN}' }),
  level: Type.Integer({ minimum: 1 }),
  date: DateString,
  status: Enum(['open', 'sent', 'cancelled', 'settled'] as const),
  total_due: Amount,
});

const partyProps = {
  name: Type.String(),
  street: Nullable(Type.String()),
  zip: Nullable(Type.String()),
  city: Nullable(Type.String()),
  country_code: Nullable(Type.String()),
  vat_id: Nullable(Type.String()),
  tax_number: Nullable(Type.String()),
  email: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  contact_name: Nullable(
    Type.String({ description: 'Seller: its contact (BT-41); buyer: the contact person' }),
  ),
};
const InvoiceParty = (description: string) => Nullable(Type.Object(partyProps, { description }));

export const Invoice = Type.Object(
  {
    id: Id,
    type: InvoiceType,
    status: Enum(STATUSES),
    invoice_number: Nullable(Type.String()),
    external: Type.Boolean({ description: 'Uploaded with POST /outgoing-invoices/external' }),
    client_id: Nullable(Id),
    contact_id: Nullable(Id),
    project_id: Nullable(Id),
    master_id: Nullable(Id),
    credited_invoice_id: Nullable(Id),
    title: Nullable(Type.String()),
    date: Nullable(DateString),
    due_date: Nullable(DateString),
    payment_term_days: Nullable(Type.Integer()),
    service_period_start: Nullable(DateString),
    service_period_end: Nullable(DateString),
    service_date: Nullable(
      Type.String({
        format: 'date',
        description:
          'Booked without a service period: the supply date, the invoice date (account setting `service_date_defaults_to_invoice_date`); the document says so',
      }),
    ),
    plan_start: Nullable(DateString),
    plan_end: Nullable(DateString),
    auto_generate: Type.Optional(Type.Boolean({ description: 'Recurring plans only: see the plan master' })),
    auto_send: Type.Optional(Type.Boolean({ description: 'Recurring plans only: see the plan master' })),
    currency: Type.String(),
    intro_text: Nullable(Type.String()),
    closing_text: Nullable(Type.String()),
    buyer_reference: Nullable(
      Type.String({ description: 'BT-10 as set on the invoice (null: the client’s applies)' }),
    ),
    tax_exemption_category: Nullable(Enum(EXEMPTION_CATEGORIES)),
    tax_exemption_reason_code: Nullable(Type.String()),
    tax_exemption_reason: Nullable(Type.String()),
    seller: InvoiceParty('The seller (account) as frozen at booking; null before'),
    buyer: InvoiceParty('The buyer (client, contact person) as frozen at booking; null before'),
    ...TotalsProps,
    plan_total: Nullable(
      Type.Object(TotalsProps, { description: 'Final invoices: the plan’s positions before deductions' }),
    ),
    deductions: Type.Array(Deduction, {
      description: 'Final invoices: the booked deposit, partial and credit invoices of the plan',
    }),
    paid_total: Amount,
    open_total: Amount,
    payment_status: PaymentStatus,
    dunning_level: Nullable(
      Type.Integer({
        minimum: 1,
        description:
          'Beyond the specification: the highest dunning level of a letter that stands (not cancelled; a settled one counts); null when none',
      }),
    ),
    dunnings: Type.Array(InvoiceDunning, {
      description: 'Beyond the specification: its dunning letters in level order (GET /dunnings?invoice_id=)',
    }),
    file_id: Nullable(Id),
    line_items: Type.Array(LineItem),
    booked_at: Nullable(Timestamp),
    deleted_at: Nullable({
      ...Timestamp,
      description: 'Soft-deleted (DELETE, DELETE …/force) at; null while live',
    }),
    deleted_by: Nullable({ ...Id, description: 'The user who deleted it' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'OutgoingInvoice' },
);
export type Invoice = Static<typeof Invoice>;

export const MasterChild = Type.Object({
  id: Id,
  type: Type.String(),
  status: Type.String(),
  invoice_number: Nullable(Type.String()),
  date: Nullable(DateString),
  due_date: Nullable(DateString),
  service_period_start: Nullable(DateString),
  service_period_end: Nullable(DateString),
  net_total: Amount,
  tax_total: Amount,
  gross_total: Amount,
  payment_status: PaymentStatus,
});

/** What the plan's scheduler did for one period (auto_generate). */
export const PlanRun = Type.Object({
  period_start: DateString,
  invoice_id: Nullable(Id),
  state: Enum(RUN_STATES, RUN_STATE_TEXT),
  mail_message_id: Nullable({
    ...Id,
    description: 'state queued: the message (GET /outgoing-invoices/{id}/messages)',
  }),
  reason: Nullable(Type.String({ description: 'Why it was not sent (booked, failed, skipped)' })),
  updated_at: Timestamp,
});

export const Master = Type.Object(
  {
    id: Id,
    type: Enum(MASTER_TYPES),
    client_id: Nullable(Id),
    contact_id: Nullable(Id),
    project_id: Nullable(Id),
    title: Nullable(Type.String()),
    currency: Type.String(),
    payment_term_days: Nullable(Type.Integer()),
    plan_start: Nullable(DateString),
    plan_end: Nullable(DateString),
    auto_generate: Type.Boolean({
      description:
        'Recurring plans: the service makes each period’s invoice on its date (false for partial plans)',
    }),
    auto_send: Type.Boolean({ description: 'Recurring plans: and books and e-mails it' }),
    auto_from: Nullable({
      ...DateString,
      description: 'The day auto_generate was turned on: periods that had ended by then are not made',
    }),
    auto_runs: Type.Array(PlanRun, {
      description: 'What the scheduler did for each period it dealt with, by period',
    }),
    intro_text: Nullable(Type.String()),
    closing_text: Nullable(Type.String()),
    ...TotalsProps,
    line_items: Type.Array(LineItem, {
      description: 'Recurring plans: the lines of every child; partial plans: the final invoice’s positions',
    }),
    final_invoice_id: Nullable(Id),
    invoiced_net_total: Amount,
    invoiced_gross_total: Amount,
    remaining_net_total: Nullable(Amount),
    remaining_gross_total: Nullable(Amount),
    children: Type.Array(MasterChild),
    deleted_at: Nullable({
      ...Timestamp,
      description: 'A plan deleted with DELETE …/force stays readable for its booked invoices',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'InvoiceMasterPlan' },
);
export type Master = Static<typeof Master>;
