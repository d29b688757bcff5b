import { Type } from 'typebox';
import { CountryCode, CurrencyCode, Email } from '../shared/schemas.js';
import type { ImportContext, ImportSection } from './context.js';
import '../web/web.tables.js';

const Key = Type.String({ minLength: 1, description: 'Reference used by later records of the file' });

const UserItem = Type.Object(
  {
    key: Type.Optional(Key),
    email: Email,
    first_name: Type.String({ minLength: 1 }),
    last_name: Type.String({ minLength: 1 }),
    role: Type.Optional(Type.Union([Type.Literal('admin'), Type.Literal('member')])),
    position: Type.Optional(Type.String()),
    phone: Type.Optional(Type.String()),
    language: Type.Optional(Type.String()),
    timezone: Type.Optional(Type.String()),
    active: Type.Optional(Type.Boolean()),
    password_hash: Type.Optional(
      Type.String({
        pattern: '^scrypt\\$\\d+\\$\\d+\\$\\d+\\$[\\w-]+\\$[\\w-]+$',
        maxLength: 200,
        description:
          'A password hash as this service stores it (`scrypt$N$r$p$salt$hash`), to move users between installations; never a password',
      }),
    ),
  },
  { additionalProperties: false },
);

const UserGroupItem = Type.Object(
  {
    key: Type.Optional(Key),
    name: Type.String({ minLength: 1 }),
    description: Type.Optional(Type.String()),
    members: Type.Optional(Type.Array(Type.String(), { description: 'Keys of users' })),
  },
  { additionalProperties: false },
);

const ClientItem = Type.Object(
  {
    key: Type.Optional(Key),
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

type Item<T> = T & { key?: string };

export const usersSection: ImportSection = {
  key: 'users',
  item: UserItem,
  description: 'Users of the account. `role` admin or member (default member).',
  async run(ctx: ImportContext, items) {
    for (const u of items as Item<{
      email: string;
      first_name: string;
      last_name: string;
      active?: boolean;
    }>[]) {
      const { key, active, password_hash, ...rest } = u as Record<string, unknown> & {
        key?: string;
        active?: boolean;
        password_hash?: string;
      };
      const row = await ctx.trx
        .insertInto('users')
        .values({
          ...(rest as { email: string; first_name: string; last_name: string }),
          email: u.email.toLowerCase(),
          account_id: ctx.accountId,
          active: active === false ? 0 : 1,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      ctx.remember('users', key, row.id);
      if (password_hash)
        await ctx.trx
          .insertInto('user_passwords')
          .values({ user_id: row.id, password_hash, updated_at: new Date().toISOString() })
          .execute();
    }
  },
};

export const userGroupsSection: ImportSection = {
  key: 'user_groups',
  item: UserGroupItem,
  description: 'User groups with their members (user keys).',
  async run(ctx, items) {
    for (const [i, g] of (
      items as { key?: string; name: string; description?: string; members?: string[] }[]
    ).entries()) {
      const row = await ctx.trx
        .insertInto('user_groups')
        .values({ account_id: ctx.accountId, name: g.name, description: g.description ?? null })
        .returning('id')
        .executeTakeFirstOrThrow();
      ctx.remember('user_groups', g.key, row.id);
      for (const m of g.members ?? []) {
        await ctx.trx
          .insertInto('user_group_members')
          .values({ user_group_id: row.id, user_id: ctx.ref('users', m, `user_groups.${i}.members`) })
          .execute();
      }
    }
  },
};

export const clientsSection: ImportSection = {
  key: 'clients',
  item: ClientItem,
  description: 'Clients. `archived: true` imports them archived.',
  async run(ctx, items) {
    const now = new Date().toISOString();
    for (const c of items as (Record<string, unknown> & {
      key?: string;
      archived?: boolean;
      name: string;
    })[]) {
      const { key, archived, ...rest } = c;
      const row = await ctx.trx
        .insertInto('clients')
        .values({
          ...(rest as { name: string }),
          account_id: ctx.accountId,
          archived_at: archived ? now : null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      ctx.remember('clients', key, row.id);
    }
  },
};
