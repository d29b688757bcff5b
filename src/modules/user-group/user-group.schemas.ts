import { type Static, Type } from 'typebox';
import { Id, Nullable, PagingQuery, Timestamp, UpdatedSinceQuery } from '../../shared/schemas.js';
import { UserBasic } from '../users/users.public.js';

export const UserGroup = Type.Object(
  {
    id: Id,
    name: Type.String(),
    description: Nullable(Type.String()),
    members: Type.Array(UserBasic, { description: 'Users in the group (basic data), by id' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'UserGroup' },
);
export type UserGroup = Static<typeof UserGroup>;

export const UserGroupListQuery = Type.Object(
  {
    ...PagingQuery,
    ...UpdatedSinceQuery,
    user_id: Type.Optional(Type.Integer({ minimum: 1, description: 'Groups this user is a member of' })),
    q: Type.Optional(Type.String({ maxLength: 255, description: 'Case-insensitive match on the name' })),
  },
  { additionalProperties: false },
);
export type UserGroupListQuery = Static<typeof UserGroupListQuery>;
