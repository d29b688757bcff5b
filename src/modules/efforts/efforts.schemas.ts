import { type Static, Type } from 'typebox';
import {
  DateString,
  Id,
  Nullable,
  SortedPagingQuery,
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
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Effort', description: 'A time entry' },
);
export type Effort = Static<typeof Effort>;

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
