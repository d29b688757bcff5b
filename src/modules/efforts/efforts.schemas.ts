import { type Static, Type } from 'typebox';
import {
  DateString,
  Id,
  Money,
  Nullable,
  optional,
  RateInput,
  SortedPagingQuery,
  Text,
  Timestamp,
  UpdatedSinceQuery,
} from '../../shared/schemas.js';

/** `admin`: internal administrative time, visible only with `efforts:extended:read`. */
export const EFFORT_TYPES = ['work', 'travel', 'admin'] as const;
export type EffortType = (typeof EFFORT_TYPES)[number];
export const EffortType = Type.Enum(EFFORT_TYPES, {
  description:
    '`work` on a project, `travel`, or internal `admin` time (needs `efforts:extended:read` to be seen)',
});

export const Effort = Type.Object(
  {
    id: Id,
    user_id: Id,
    project_id: Nullable(Id),
    task_id: Nullable(Id),
    date: DateString,
    duration_minutes: Type.Integer({ minimum: 0 }),
    billable: Type.Boolean(),
    type: EffortType,
    description: Nullable(Type.String()),
    hourly_rate: Nullable({
      ...Money,
      description:
        'Sale rate an hour for this effort alone (beyond the specification); null: the rate order decides',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Effort', description: 'A time entry' },
);
export type Effort = Static<typeof Effort>;

/** Fields a caller may write (beyond the specification: efforts were read-only). */
const writable = {
  user_id: Id,
  project_id: Nullable(Id),
  task_id: Nullable(Id),
  date: DateString,
  duration_minutes: Type.Integer({ minimum: 0, maximum: 24 * 60 }),
  billable: Type.Boolean(),
  type: EffortType,
  description: Text(10_000),
  hourly_rate: Nullable({ ...RateInput, description: 'Sale rate an hour for this effort alone' }),
};

const { date, duration_minutes, ...rest } = writable;

export const EffortCreate = Type.Object(
  { date, duration_minutes, ...optional(rest) },
  {
    additionalProperties: false,
    description:
      '`user_id` defaults to the token’s user; `task_id` alone sets the project too. `billable` defaults to true except for `admin` time.',
  },
);
export type EffortCreate = Static<typeof EffortCreate>;

export const EffortUpdate = Type.Object(optional(writable), {
  additionalProperties: false,
  minProperties: 1,
});
export type EffortUpdate = Static<typeof EffortUpdate>;

const IdFilter = Type.Optional(Type.Integer({ minimum: 1 }));

export const EffortListQuery = Type.Object(
  {
    ...SortedPagingQuery(['date', 'user_id', 'project_id', 'task_id', 'duration_minutes']),
    ...UpdatedSinceQuery,
    date_from: Type.Optional(Type.String({ format: 'date', description: 'On or after this date' })),
    date_to: Type.Optional(Type.String({ format: 'date', description: 'On or before this date' })),
    user_id: IdFilter,
    project_id: IdFilter,
    task_id: IdFilter,
    type: Type.Optional(EffortType),
    billable: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type EffortListQuery = Static<typeof EffortListQuery>;
