import { type Static, Type } from 'typebox';
import {
  Email,
  Id,
  Nullable,
  pick,
  SortedPagingQuery,
  Timestamp,
  UpdatedSinceQuery,
} from '../../shared/schemas.js';

const fullProps = {
  id: Id,
  first_name: Type.String(),
  last_name: Type.String(),
  position: Nullable(Type.String()),
  active: Type.Boolean(),
  email: Email,
  role: Type.Union([Type.Literal('admin'), Type.Literal('member')]),
  phone: Nullable(Type.String()),
  language: Type.String(),
  timezone: Type.String(),
  user_group_ids: Type.Array(Id),
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const UserFull = Type.Object(fullProps, { $id: 'UserFullData', description: 'UserFullData' });
/** Basic data: a strict subset of UserFullData. */
export const UserBasic = Type.Object(
  pick(fullProps, ['id', 'first_name', 'last_name', 'position', 'active']),
  {
    $id: 'UserBasic',
  },
);
export type UserFull = Static<typeof UserFull>;
export type UserBasic = Static<typeof UserBasic>;

export const UserListQuery = Type.Object(
  {
    ...SortedPagingQuery(['last_name', 'first_name', 'email']),
    ...UpdatedSinceQuery,
    active: Type.Optional(Type.Boolean()),
    email: Type.Optional(Type.String({ maxLength: 254 })),
  },
  { additionalProperties: false },
);
export type UserListQuery = Static<typeof UserListQuery>;
