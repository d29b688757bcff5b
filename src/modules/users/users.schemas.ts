import { type Static, Type } from 'typebox';
import {
  Email,
  Id,
  Money,
  Nullable,
  pick,
  RateInput,
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

/** A user's rates (beyond the specification): what their hour sells for and what it costs. */
export const UserRates = Type.Object(
  {
    user_id: Id,
    hourly_rate: Nullable({
      ...Money,
      description:
        'Sale rate an hour where no task, team or project rate applies; null: the account’s default',
    }),
    cost_rate: Nullable({ ...Money, description: 'Internal cost an hour, for margins' }),
    updated_at: Nullable({ ...Timestamp, description: 'Last change; null when never set' }),
  },
  { $id: 'UserRates' },
);
export type UserRates = Static<typeof UserRates>;

export const UserRatesPut = Type.Object(
  { hourly_rate: Nullable(RateInput), cost_rate: Nullable(RateInput) },
  { additionalProperties: false, description: 'Both rates; `null` clears one.' },
);
export type UserRatesPut = Static<typeof UserRatesPut>;
