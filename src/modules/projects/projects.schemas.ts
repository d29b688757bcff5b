import { type Static, Type } from 'typebox';
import {
  ArchivedQuery,
  CurrencyCode,
  DateString,
  Id,
  Money,
  Nullable,
  optional,
  PagingQuery,
  RateInput,
  SortedPagingQuery,
  Text,
  Timestamp,
  UpdatedSinceQuery,
} from '../../shared/schemas.js';
import { CustomFieldValues, CustomFieldValuesInput } from '../custom-fields/custom-fields.public.js';

export const PROJECT_STATUSES = ['planned', 'active', 'on_hold', 'completed', 'cancelled'] as const;
export type ProjectStatus = (typeof PROJECT_STATUSES)[number];
export const ProjectStatus = Type.Enum(PROJECT_STATUSES);

/** How a project is billed (beyond the specification): by its hours, or by its plan. */
export const BILLING_MODES = ['time_and_materials', 'fixed_price'] as const;
export type BillingMode = (typeof BILLING_MODES)[number];
export const BillingMode = Type.Enum(BILLING_MODES, {
  description: '`time_and_materials`: billed by its hours; `fixed_price`: billed by its plan, not its hours',
});

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
    billing_mode: BillingMode,
    hourly_rate: Nullable({
      ...Money,
      description: 'Sale rate an hour on this project; null: the rate order goes on',
    }),
    budget_amount: Nullable({ ...Money, description: 'Money budget, in `currency`' }),
    currency: Nullable({ ...CurrencyCode, description: 'ISO 4217; null: the client’s, else the account’s' }),
    custom_fields: CustomFieldValues,
    archived_at: Nullable(Timestamp),
    ...stamps,
  },
  { $id: 'Project' },
);
export type Project = Static<typeof Project>;

/** Fields a caller may write (beyond the specification: projects came in only through the import). */
const writable = {
  client_id: Id,
  name: Type.String({ minLength: 1, maxLength: 255 }),
  identifier: Nullable(
    Type.String({ minLength: 1, maxLength: 64, description: 'Project number, unique in the account (409)' }),
  ),
  description: Text(50_000),
  portfolio_id: Nullable(Id),
  project_group_ids: Type.Array(Id, { maxItems: 100, uniqueItems: true }),
  status: ProjectStatus,
  billable: Type.Boolean(),
  start_date: Nullable(DateString),
  end_date: Nullable(DateString),
  budget_minutes: Nullable(Type.Integer({ minimum: 0, maximum: 100_000_000 })),
  billing_mode: BillingMode,
  hourly_rate: Nullable(RateInput),
  budget_amount: Nullable({ ...Money, minimum: 0, maximum: 10_000_000_000 }),
  currency: Nullable(CurrencyCode),
};

const { client_id, name, ...rest } = writable;

export const ProjectCreate = Type.Object(
  { client_id, name, ...optional(rest), custom_fields: Type.Optional(CustomFieldValuesInput) },
  {
    additionalProperties: false,
    description:
      '`status` defaults to active, `billable` to true, `billing_mode` to time_and_materials. The client, portfolio and groups must be of the account (422).',
  },
);
export type ProjectCreate = Static<typeof ProjectCreate>;

export const ProjectUpdate = Type.Object(
  { ...optional(writable), custom_fields: Type.Optional(CustomFieldValuesInput) },
  { additionalProperties: false, minProperties: 1 },
);
export type ProjectUpdate = Static<typeof ProjectUpdate>;

export const TeamParams = Type.Object({ id: Id, user_id: Id });
export type TeamParams = Static<typeof TeamParams>;

export const TeamMemberPut = Type.Object(
  {
    role: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Default: member' })),
    hourly_rate: Type.Optional(
      Nullable({ ...RateInput, description: 'This member’s sale rate an hour on this project' }),
    ),
  },
  { additionalProperties: false },
);
export type TeamMemberPut = Static<typeof TeamMemberPut>;

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
    hourly_rate: Nullable({
      ...Money,
      description: 'This member’s sale rate an hour on this project (beyond the specification)',
    }),
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
