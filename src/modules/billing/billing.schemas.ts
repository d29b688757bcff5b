import { type Static, Type } from 'typebox';
import { CurrencyCode, DateString, Id, Nullable, PagingQuery, Text } from '../../shared/schemas.js';
import { Amount, Invoice } from '../outgoing-invoices/outgoing-invoices.public.js';
import { GROUP_BY, MAX_ROUNDING_MINUTES, RATE_SOURCES } from './rates.domain.js';

export const MAX_EFFORT_IDS = 10_000;

export const FromEffortsBody = Type.Object(
  {
    project_id: Type.Optional({ ...Id, description: 'Bill this project (or `client_id`, not both)' }),
    client_id: Type.Optional({
      ...Id,
      description: 'Bill the client’s time-and-materials projects (or `project_id`, not both)',
    }),
    date_from: { ...DateString, description: 'First day of the efforts billed (inclusive)' },
    date_to: { ...DateString, description: 'Last day of the efforts billed (inclusive)' },
    effort_ids: Type.Optional(
      Type.Array(Id, {
        minItems: 1,
        maxItems: MAX_EFFORT_IDS,
        description:
          'Only these efforts; each must be in the scope (project or client, dates), billable, not admin time (422) and on no invoice (409 `effort_already_billed`)',
      }),
    ),
    group_by: Type.Optional(
      Type.Enum(GROUP_BY, {
        description:
          'One line per effort, task, user, day or one for all (`none`), and per rate within each (default `task`)',
      }),
    ),
    rounding_minutes: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_ROUNDING_MINUTES,
        description: 'Each effort is rounded up to a multiple of this before pricing (default 1: as tracked)',
      }),
    ),
    tax_rate: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 100,
        description:
          'Tax rate of the lines in percent; default: the client’s treatment (reverse charge, 0 %, for a business client in another EU country) or the standard rate of the account’s country',
      }),
    ),
    title: Type.Optional(Text()),
    date: Type.Optional({ ...DateString, description: 'Invoice date; default: none until booked' }),
  },
  { additionalProperties: false },
);
export type FromEffortsBody = Static<typeof FromEffortsBody>;

export { Invoice };

const RateSource = Type.Enum(RATE_SOURCES, {
  description: 'Which level of the rate order gave the rate: effort, task, team, project, user, account',
});

export const TimesheetEntry = Type.Object({
  effort_id: Id,
  position: Type.Integer({ minimum: 1, description: 'The invoice line the effort stands on' }),
  date: DateString,
  user_id: Id,
  user_name: Nullable(Type.String()),
  project_id: Nullable(Id),
  task_id: Nullable(Id),
  task_name: Nullable(Type.String()),
  description: Nullable(Type.String()),
  minutes_tracked: Type.Integer(),
  minutes_billed: Type.Integer({ description: 'After rounding' }),
  hours: Type.Number({ description: 'minutes_billed / 60, four decimals, rounded half up' }),
  hourly_rate: Amount,
  rate_source: RateSource,
  amount: { ...Amount, description: 'hours × hourly_rate, rounded half away from zero to the cent' },
});

export const TimesheetQuery = Type.Object(PagingQuery, { additionalProperties: false });

export const OfferInvoiceBody = Type.Object(
  {
    as: Type.Optional(
      Type.Enum(['invoice', 'partial_plan'] as const, {
        description:
          '`invoice` (default): an open one-time invoice with the offer’s lines; `partial_plan`: a partial-plan master whose final invoice carries them',
      }),
    ),
  },
  { additionalProperties: false },
);
export type OfferInvoiceBody = Static<typeof OfferInvoiceBody>;

export const OfferInvoice = Type.Object({
  id: { ...Id, description: 'The invoice: the one-time invoice, or the plan’s final invoice' },
  offer_id: Id,
  master_id: Nullable({ ...Id, description: 'The partial plan (GET /outgoing-invoices/master/{id})' }),
  invoice: Invoice,
});
export type OfferInvoice = Static<typeof OfferInvoice>;

const Minutes = Type.Object({
  tracked: Type.Integer(),
  billable: Type.Integer({ description: 'Billable and not admin time' }),
  non_billable: Type.Integer(),
  unrated: Type.Integer({ description: 'Billable minutes no level of the rate order has a rate for' }),
});

const Figures = {
  minutes: Minutes,
  billable_value: {
    ...Amount,
    description: 'Billable minutes at their resolved rates, each effort valued as a one-effort line',
  },
  billed_value: { ...Amount, description: 'Efforts on invoices, at the minutes and rate they were billed' },
  uninvoiced_value: { ...Amount, description: 'Billable efforts on no invoice, at their resolved rates' },
  cost: { ...Amount, description: 'Every effort’s minutes at its user’s cost rate' },
};

const Part = (
  key: Record<string, ReturnType<typeof Nullable> | typeof Id | ReturnType<typeof Type.String>>,
) =>
  Type.Object({
    ...key,
    ...Figures,
    margin: { ...Amount, description: 'billed_value − cost' },
  });

export const ProjectReport = Type.Object({
  project_id: Id,
  billing_mode: Type.String(),
  currency: Type.String(),
  includes_admin_efforts: Type.Boolean({ description: 'Admin time is counted with efforts:extended:read' }),
  budget: Type.Object({
    minutes: Nullable(Type.Integer()),
    amount: Nullable(Amount),
    minutes_left: Nullable(Type.Integer({ description: 'Budget minutes − tracked minutes' })),
    amount_left: Nullable({ ...Amount, description: 'Budget amount − invoiced net' }),
  }),
  totals: Type.Object({
    ...Figures,
    invoiced_net: Type.Object({ booked: Amount, open: Amount, total: Amount }),
    margin: { ...Amount, description: 'invoiced_net.total − cost' },
  }),
  by_user: Type.Array(Part({ user_id: Id, name: Nullable(Type.String()) })),
  by_task: Type.Array(Part({ task_id: Nullable(Id), name: Nullable(Type.String()) })),
  by_month: Type.Array(Part({ month: Type.String({ pattern: '^\\d{4}-\\d{2}$' }) })),
});
export type ProjectReport = Static<typeof ProjectReport>;

export const UninvoicedQuery = Type.Object(
  {
    date_from: Type.Optional(DateString),
    date_to: Type.Optional(DateString),
  },
  { additionalProperties: false },
);
export type UninvoicedQuery = Static<typeof UninvoicedQuery>;

const Uninvoiced = {
  currency: { ...CurrencyCode, description: 'The currency its invoices get' },
  minutes: Type.Integer(),
  value: Amount,
};

export const UninvoicedReport = Type.Object({
  projects: Type.Array(
    Type.Object({
      project_id: Id,
      name: Type.String(),
      client_id: Id,
      client_name: Nullable(Type.String()),
      ...Uninvoiced,
    }),
  ),
  clients: Type.Array(
    Type.Object(
      { client_id: Id, name: Nullable(Type.String()), ...Uninvoiced },
      { description: 'Per client and currency' },
    ),
  ),
  totals: Type.Array(Type.Object(Uninvoiced), { description: 'Per currency' }),
});
export type UninvoicedReport = Static<typeof UninvoicedReport>;
