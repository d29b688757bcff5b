import { type Static, Type } from 'typebox';
import { ArchivableListQuery } from '../../shared/archivable.js';
import {
  DateString,
  Id,
  Money,
  Nullable,
  optional,
  PagingQuery,
  RateInput,
  Text,
  Timestamp,
} from '../../shared/schemas.js';
import { CustomFieldValues, CustomFieldValuesInput } from '../custom-fields/custom-fields.public.js';
import { FileData } from '../files/files.public.js';

export const TASK_STATUSES = ['open', 'in_progress', 'done'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
export const TaskStatus = Type.Enum(TASK_STATUSES);
export const TASK_PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export type TaskPriority = (typeof TASK_PRIORITIES)[number];
export const TaskPriority = Type.Enum(TASK_PRIORITIES);

/** Fields a caller may write on create and update. */
const writable = {
  project_id: Id,
  name: Type.String({ minLength: 1, maxLength: 255 }),
  description: Text(50_000),
  status: TaskStatus,
  priority: TaskPriority,
  phase_id: Nullable(Id),
  milestone_id: Nullable(Id),
  epic_id: Nullable(Id),
  assignee_id: Nullable(Id),
  start_date: Nullable(DateString),
  due_date: Nullable(DateString),
  estimate_minutes: Nullable(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
};

export const Task = Type.Object(
  {
    id: Id,
    ...writable,
    hourly_rate: Nullable({
      ...Money,
      description:
        'Sale rate an hour for efforts on this task (beyond the specification); null: the rate order goes on',
    }),
    external_id: Nullable(Type.String()),
    custom_fields: CustomFieldValues,
    files: Type.Array(FileData, { description: 'Files uploaded to the task' }),
    created_by_id: Nullable(Id),
    completed_at: Nullable(Timestamp),
    archived_at: Nullable(Timestamp),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Task' },
);
export type Task = Static<typeof Task>;

const { project_id, name, ...rest } = writable;

export const TaskCreate = Type.Object(
  {
    project_id,
    name,
    ...optional(rest),
    external_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255 }))),
    custom_fields: Type.Optional(CustomFieldValuesInput),
  },
  {
    additionalProperties: false,
    description:
      'Phase, milestone and epic must belong to the task’s project. `status` defaults to open, `priority` to normal.',
  },
);
export type TaskCreate = Static<typeof TaskCreate>;

/** `external_id` has its own endpoint; PATCH leaves it alone. */
export const TaskUpdate = Type.Object(
  {
    ...optional(writable),
    custom_fields: Type.Optional(CustomFieldValuesInput),
    hourly_rate: Type.Optional(
      Nullable({
        ...RateInput,
        description: 'Sale rate an hour for efforts on this task (beyond the specification)',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type TaskUpdate = Static<typeof TaskUpdate>;

export const TaskParams = Type.Object({ task: Id });

const SORTABLE = ['name', 'status', 'priority', 'due_date', 'start_date', 'project_id'];
/** Besides paging, `sort`, `archived` and `updated_since` (the list query of archivable records). */
const filters = {
  assignee_id: Type.Optional(Type.Integer({ minimum: 1 })),
  unassigned: Type.Optional(Type.Boolean({ description: 'true: only tasks without assignee' })),
  status: Type.Optional(TaskStatus),
  priority: Type.Optional(TaskPriority),
  phase_id: Type.Optional(Type.Integer({ minimum: 1 })),
  milestone_id: Type.Optional(Type.Integer({ minimum: 1 })),
  epic_id: Type.Optional(Type.Integer({ minimum: 1 })),
  due_from: Type.Optional(Type.String({ format: 'date', description: 'Due on or after this date' })),
  due_to: Type.Optional(Type.String({ format: 'date', description: 'Due on or before this date' })),
  external_id: Type.Optional(Type.String({ maxLength: 255 })),
  q: Type.Optional(Type.String({ maxLength: 255, description: 'Case-insensitive match on the name' })),
};

export const ProjectTaskListQuery = ArchivableListQuery(SORTABLE, filters);
export const TaskListQuery = ArchivableListQuery(SORTABLE, {
  ...filters,
  project_id: Type.Optional(Type.Integer({ minimum: 1 })),
});
export type TaskListQuery = Static<typeof TaskListQuery>;

export const Comment = Type.Object(
  {
    id: Id,
    task_id: Id,
    author_id: Id,
    content: Type.String(),
    files: Type.Array(FileData, { description: 'Files uploaded to the comment' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'TaskComment' },
);
export type Comment = Static<typeof Comment>;

const Content = Type.String({ minLength: 1, maxLength: 50_000 });

export const CommentCreate = Type.Object(
  { task_id: Id, content: Content },
  { additionalProperties: false, description: 'The author is the user of the token.' },
);
export type CommentCreate = Static<typeof CommentCreate>;

export const CommentUpdate = Type.Object({ content: Content }, { additionalProperties: false });
export type CommentUpdate = Static<typeof CommentUpdate>;

export const CommentListQuery = Type.Object({ ...PagingQuery }, { additionalProperties: false });
export type CommentListQuery = Static<typeof CommentListQuery>;
