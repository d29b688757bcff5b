import { type Static, Type } from 'typebox';
import {
  DateString,
  Id,
  Nullable,
  SortedPagingQuery,
  Timestamp,
  UpdatedSinceQuery,
} from '../../shared/schemas.js';
import { LineItem, TotalsProps } from '../outgoing-invoices/outgoing-invoices.public.js';

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
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Offer' },
);
export type Offer = Static<typeof Offer>;

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
