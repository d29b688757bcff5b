import { Type } from 'typebox';
import { type ImportContext, ImportKey, type ImportSection } from '../../import/context.js';
import { keyedSection } from '../../shared/keyed-section.js';
import { Email } from '../../shared/schemas.js';
import { insertUser, upsertPasswordHash } from './passwords.repository.js';

const UserItem = Type.Object(
  {
    key: Type.Optional(ImportKey),
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

interface UserItem {
  key?: string;
  email: string;
  first_name: string;
  last_name: string;
  role?: 'admin' | 'member';
  position?: string;
  phone?: string;
  language?: string;
  timezone?: string;
  active?: boolean;
  password_hash?: string;
}

export const usersSection: ImportSection = keyedSection<ImportContext, UserItem>({
  key: 'users',
  item: UserItem,
  description: 'Users of the account. `role` admin or member (default member).',
  async insert(ctx, { key, active, password_hash, ...rest }) {
    const id = await insertUser(ctx.trx, {
      ...rest,
      email: rest.email.toLowerCase(),
      account_id: ctx.accountId,
      active: active === false ? 0 : 1,
    });
    // A fresh user has no password yet, so this only inserts.
    if (password_hash) await upsertPasswordHash(ctx.trx, id, password_hash, new Date().toISOString());
    return { key, id };
  },
});
