import { type Static, Type } from 'typebox';
import {
  CurrencyCode,
  DateString,
  Id,
  Nullable,
  optional,
  SortedPagingQuery,
  Text,
  Timestamp,
  UpdatedSinceQuery,
} from '../../shared/schemas.js';
import { LineItem, LineItemsInput, TotalsProps } from '../outgoing-invoices/outgoing-invoices.public.js';

export const OFFER_STATUSES = ['created', 'sent', 'accepted', 'declined'] as const;

export const Offer = Type.Object(
  {
    id: Id,
    offer_number: Nullable(Type.String()),
    status: Type.Enum(OFFER_STATUSES),
    client_id: Nullable(Id),
    contact_id: Nullable(Id),
    project_id: Nullable(Id),
    title: Nullable(Type.String()),
    date: Nullable(DateString),
    valid_until: Nullable(DateString),
    currency: Type.String(),
    intro_text: Nullable(Type.String()),
    closing_text: Nullable(Type.String()),
    ...TotalsProps,
    line_items: Type.Array(LineItem),
    invoice_id: Nullable({
      ...Id,
      description: 'The invoice made from this offer (beyond the specification); null while there is none',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Offer' },
);
export type Offer = Static<typeof Offer>;

/** Fields a caller may write (beyond the specification: offers came in only through the import). */
const writable = {
  offer_number: Nullable(Type.String({ minLength: 1, maxLength: 64 })),
  status: Type.Enum(['created', 'sent'], {
    description: '`created` or `sent`; an offer is accepted or declined through its own endpoints',
  }),
  client_id: Nullable(Id),
  contact_id: Nullable(Id),
  project_id: Nullable(Id),
  title: Text(255),
  date: Nullable(DateString),
  valid_until: Nullable(DateString),
  currency: CurrencyCode,
  intro_text: Text(10_000),
  closing_text: Text(10_000),
  line_items: LineItemsInput,
};

export const OfferCreate = Type.Object(optional(writable), {
  additionalProperties: false,
  description:
    '`status` defaults to created, `currency` to the client’s, then the account’s. Client, contact and project must be of the account (422).',
});
export type OfferCreate = Static<typeof OfferCreate>;

export const OfferUpdate = Type.Object(optional(writable), {
  additionalProperties: false,
  minProperties: 1,
  description: '`line_items`, when present, replaces every line of the offer.',
});
export type OfferUpdate = Static<typeof OfferUpdate>;

export const OfferListQuery = Type.Object(
  {
    ...SortedPagingQuery(['date', 'offer_number', 'status', 'client_id', 'valid_until']),
    ...UpdatedSinceQuery,
    status: Type.Optional(Type.Enum(OFFER_STATUSES)),
    client_id: Type.Optional(Id),
    contact_id: Type.Optional(Id),
    project_id: Type.Optional(Id),
    date_from: Type.Optional(DateString),
    date_to: Type.Optional(DateString),
  },
  { additionalProperties: false },
);
export type OfferListQuery = Static<typeof OfferListQuery>;
