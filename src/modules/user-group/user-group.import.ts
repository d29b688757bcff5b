import { Type } from 'typebox';
import { ImportKey, type ImportSection } from '../../import/context.js';
import { insertGroup, insertMember } from './user-group.repository.js';

const UserGroupItem = Type.Object(
  {
    key: Type.Optional(ImportKey),
    name: Type.String({ minLength: 1 }),
    description: Type.Optional(Type.String()),
    members: Type.Optional(Type.Array(Type.String(), { description: 'Keys of users' })),
  },
  { additionalProperties: false },
);

interface UserGroupItem {
  key?: string;
  name: string;
  description?: string;
  members?: string[];
}

/**
 * A loop of its own rather than shared/keyed-section.ts: the group's key is remembered before
 * its members are resolved, so a key used twice is reported before an unknown member (as ever).
 */
export const userGroupsSection: ImportSection = {
  key: 'user_groups',
  item: UserGroupItem,
  description: 'User groups with their members (user keys).',
  async run(ctx, items) {
    for (const [i, g] of (items as UserGroupItem[]).entries()) {
      const id = await insertGroup(ctx.trx, {
        account_id: ctx.accountId,
        name: g.name,
        description: g.description ?? null,
      });
      ctx.remember('user_groups', g.key, id);
      for (const m of g.members ?? [])
        await insertMember(ctx.trx, id, ctx.ref('users', m, `user_groups.${i}.members`));
    }
  },
};
