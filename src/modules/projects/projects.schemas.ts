import { type Static, Type } from 'typebox';
import {
  ArchivedQuery,
  DateString,
  Id,
  Nullable,
  PagingQuery,
  SortedPagingQuery,
  Timestamp,
  UpdatedSinceQuery,
} from '../../shared/schemas.js';
import { CustomFieldValues } from '../custom-fields/custom-fields.public.js';

export const PROJECT_STATUSES = ['planned', 'active', 'on_hold', 'completed', 'cancelled'] as const;
export type ProjectStatus = (typeof PROJECT_STATUSES)[number];
export const ProjectStatus = Type.Enum(PROJECT_STATUSES);

export const EPIC_STATUSES = ['open', 'in_progress', 'done'] as const;
export const EpicStatus = Type.Enum(EPIC_STATUSES);

const IdQuery = (description: string) => Type.Optional(Type.Integer({ minimum: 1, description }));
const Search = Type.Optional(
  Type.String({ maxLength: 255, description: 'Case-insensitive match on the name' }),
);

/** The fields every named record of the module starts with (parts of a project add `project_id`). */
const named = { name: Type.String(), description: Nullable(Type.String()) };
const part = { id: Id, project_id: Id, ...named };
const stamps = { created_at: Timestamp, updated_at: Timestamp };
const period = { start_date: Nullable(DateString), end_date: Nullable(DateString) };

export const Project = Type.Object(
  {
    id: Id,
    identifier: Nullable(Type.String({ description: 'Project number, unique in the account' })),
    ...named,
    client_id: Id,
    portfolio_id: Nullable(Id),
    project_group_ids: Type.Array(Id),
    status: ProjectStatus,
    billable: Type.Boolean(),
    ...period,
    budget_minutes: Nullable(Type.Integer({ description: 'Time budget in minutes' })),
    custom_fields: CustomFieldValues,
    archived_at: Nullable(Timestamp),
    ...stamps,
  },
  { $id: 'Project' },
);
export type Project = Static<typeof Project>;

export const ProjectListQuery = Type.Object(
  {
    ...SortedPagingQuery(['name', 'identifier', 'status', 'client_id', 'start_date', 'end_date']),
    ...ArchivedQuery,
    ...UpdatedSinceQuery,
    client_id: IdQuery('Projects of this client'),
    portfolio_id: IdQuery('Projects in this portfolio'),
    project_group_id: IdQuery('Projects in this project group'),
    user_id: IdQuery('Projects whose team includes this user'),
    status: Type.Optional(ProjectStatus),
    q: Type.Optional(
      Type.String({ maxLength: 255, description: 'Case-insensitive match on name or identifier' }),
    ),
  },
  { additionalProperties: false },
);
export type ProjectListQuery = Static<typeof ProjectListQuery>;

export const SubListQuery = Type.Object({ ...PagingQuery }, { additionalProperties: false });
export type SubListQuery = Static<typeof SubListQuery>;

export const TeamMember = Type.Object(
  {
    user_id: Id,
    first_name: Type.String(),
    last_name: Type.String(),
    position: Nullable(Type.String()),
    active: Type.Boolean(),
    role: Type.String({ description: 'Role of the user in this project, e.g. manager or member' }),
    added_at: Timestamp,
  },
  { $id: 'ProjectTeamMember' },
);
export type TeamMember = Static<typeof TeamMember>;

export const Guest = Type.Object(
  {
    id: Id,
    contact_id: Nullable(Id),
    name: Type.String(),
    email: Nullable(Type.String()),
    created_at: Timestamp,
  },
  {
    $id: 'ProjectGuest',
    description:
      'A person outside the account with access to the project; `contact_id` when it is a known contact',
  },
);
export type Guest = Static<typeof Guest>;

export const Phase = Type.Object(
  {
    ...part,
    position: Type.Integer(),
    ...period,
    ...stamps,
  },
  { $id: 'ProjectPhase' },
);
export type Phase = Static<typeof Phase>;

export const Milestone = Type.Object(
  {
    ...part,
    due_date: Nullable(DateString),
    completed: Type.Boolean(),
    completed_at: Nullable(Timestamp),
    ...stamps,
  },
  { $id: 'ProjectMilestone' },
);
export type Milestone = Static<typeof Milestone>;

export const Epic = Type.Object(
  {
    ...part,
    status: EpicStatus,
    ...period,
    ...stamps,
  },
  { $id: 'ProjectEpic' },
);
export type Epic = Static<typeof Epic>;

export const Portfolio = Type.Object(
  {
    id: Id,
    ...named,
    archived_at: Nullable(Timestamp),
    ...stamps,
  },
  { $id: 'Portfolio' },
);
export type Portfolio = Static<typeof Portfolio>;

export const PortfolioListQuery = Type.Object(
  { ...SortedPagingQuery(['name']), ...ArchivedQuery, ...UpdatedSinceQuery, q: Search },
  { additionalProperties: false },
);
export type PortfolioListQuery = Static<typeof PortfolioListQuery>;

export const ProjectGroup = Type.Object(
  {
    id: Id,
    ...named,
    ...stamps,
  },
  { $id: 'ProjectGroup' },
);
export type ProjectGroup = Static<typeof ProjectGroup>;

export const ProjectGroupListQuery = Type.Object(
  { ...PagingQuery, ...UpdatedSinceQuery, q: Search },
  { additionalProperties: false },
);
export type ProjectGroupListQuery = Static<typeof ProjectGroupListQuery>;
