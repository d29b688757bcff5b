import { Type } from 'typebox';
import type { ImportSection } from '../../import/context.js';
import { CurrencyCode, DateString } from '../../shared/schemas.js';
import {
  forEachDocument,
  type LineItemInput,
  LineItemsInput,
} from '../outgoing-invoices/outgoing-invoices.public.js';
import { insertOffer, insertOfferItems } from './offers.repository.js';
import { OFFER_STATUSES } from './offers.schemas.js';

const OfferItem = Type.Object(
  {
    key: Type.Optional(Type.String({ minLength: 1 })),
    offer_number: Type.Optional(Type.String({ minLength: 1 })),
    status: Type.Optional(Type.Enum(OFFER_STATUSES)),
    client: Type.Optional(Type.String({ description: 'Key of a client earlier in the file' })),
    project: Type.Optional(Type.String({ description: 'Key of a project earlier in the file' })),
    contact: Type.Optional(Type.String({ description: 'Key of a contact earlier in the file' })),
    title: Type.Optional(Type.String()),
    date: Type.Optional(DateString),
    valid_until: Type.Optional(DateString),
    currency: Type.Optional(CurrencyCode),
    intro_text: Type.Optional(Type.String()),
    closing_text: Type.Optional(Type.String()),
    line_items: LineItemsInput,
  },
  { additionalProperties: false },
);

interface OfferItem {
  key?: string;
  offer_number?: string;
  status?: string;
  client?: string;
  project?: string;
  contact?: string;
  title?: string;
  date?: string;
  valid_until?: string;
  currency?: string;
  intro_text?: string;
  closing_text?: string;
  line_items: LineItemInput[];
}

export const offersSection: ImportSection = {
  key: 'offers',
  item: OfferItem,
  description:
    'Offers with their line items (`quantity`, `unit_price`, `tax_rate`, `discount` as in the API). Currency defaults to the client’s, then the account’s.',
  run: (ctx, items) =>
    forEachDocument<OfferItem>(ctx, 'offers', items, async (o, at, lines, defaultsOf) => {
      const clientId = ctx.optionalRef('clients', o.client, `${at}.client`);
      const { currency } = await defaultsOf(clientId);
      const row = await insertOffer(ctx.trx, {
        account_id: ctx.accountId,
        offer_number: o.offer_number ?? null,
        status: o.status ?? 'created',
        client_id: clientId,
        contact_id: ctx.optionalRef('contacts', o.contact, `${at}.contact`),
        project_id: ctx.optionalRef('projects', o.project, `${at}.project`),
        title: o.title ?? null,
        date: o.date ?? null,
        valid_until: o.valid_until ?? null,
        currency: o.currency ?? currency,
        intro_text: o.intro_text ?? null,
        closing_text: o.closing_text ?? null,
      });
      await insertOfferItems(ctx.trx, ctx.accountId, row.id, lines);
      ctx.remember('offers', o.key, row.id);
    }),
};
