import { Type } from 'typebox';
import { type ImportContext, ImportKey, type ImportSection } from '../../import/context.js';
import { keyedSection } from '../../shared/keyed-section.js';
import { CountryCode, CurrencyCode, Email } from '../../shared/schemas.js';
import { insertClient } from './clients.repository.js';

const ClientItem = Type.Object(
  {
    key: Type.Optional(ImportKey),
    name: Type.String({ minLength: 1 }),
    shortcode: Type.Optional(Type.String()),
    external_id: Type.Optional(Type.String()),
    email: Type.Optional(Email),
    phone: Type.Optional(Type.String()),
    website: Type.Optional(Type.String()),
    street: Type.Optional(Type.String()),
    zip: Type.Optional(Type.String()),
    city: Type.Optional(Type.String()),
    country_code: Type.Optional(CountryCode),
    vat_id: Type.Optional(Type.String()),
    tax_number: Type.Optional(Type.String()),
    language: Type.Optional(Type.String()),
    currency: Type.Optional(CurrencyCode),
    payment_term_days: Type.Optional(Type.Integer({ minimum: 0 })),
    notes: Type.Optional(Type.String()),
    archived: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

type Item = Record<string, unknown> & { key?: string; archived?: boolean; name: string };

export const clientsSection: ImportSection = keyedSection<ImportContext, Item>({
  key: 'clients',
  item: ClientItem,
  description: 'Clients. `archived: true` imports them archived.',
  async insert(ctx, c) {
    const { key, archived, ...rest } = c;
    const row = await insertClient(ctx.trx, {
      ...(rest as { name: string }),
      account_id: ctx.accountId,
      archived_at: archived ? new Date().toISOString() : null,
    });
    return { key, id: row.id };
  },
});
