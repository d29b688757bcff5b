import type { Selectable } from 'kysely';
import type { Static, TObject } from 'typebox';
import type { Db } from '../../db/index.js';
import type { Database } from '../../db/schema.js';
import { notFound } from '../../shared/errors.js';
import type { Page } from '../../shared/paging.js';
import type { AuthContext } from '../../shared/tokens.js';
import { parseCustomFieldValues } from '../custom-fields/custom-fields.public.js';
import { usersBasicByIds } from '../users/users.public.js';
import type { PartTable, ProjectRow } from './projects.repository.js';
import * as repo from './projects.repository.js';
import {
  Epic,
  Guest,
  Milestone,
  Phase,
  Portfolio,
  type PortfolioListQuery,
  type Project,
  ProjectGroup,
  type ProjectGroupListQuery,
  type ProjectListQuery,
  type ProjectStatus,
  type SubListQuery,
  type TeamMember,
} from './projects.schemas.js';

export function toProject(r: ProjectRow, groupIds: number[]): Project {
  return {
    id: r.id,
    identifier: r.identifier,
    name: r.name,
    description: r.description,
    client_id: r.client_id,
    portfolio_id: r.portfolio_id,
    project_group_ids: groupIds,
    status: r.status as ProjectStatus,
    billable: Boolean(r.billable),
    start_date: r.start_date,
    end_date: r.end_date,
    budget_minutes: r.budget_minutes,
    custom_fields: parseCustomFieldValues(r.custom_fields),
    archived_at: r.archived_at,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

export async function getProjectRow(db: Db, auth: AuthContext, id: number): Promise<ProjectRow> {
  const row = await repo.findProject(db, auth.accountId, id);
  if (!row) throw notFound('Project');
  return row;
}

export async function getProject(db: Db, auth: AuthContext, id: number): Promise<Project> {
  const row = await getProjectRow(db, auth, id);
  const groups = await repo.groupIdsOf(db, [row.id]);
  return toProject(row, groups.get(row.id) ?? []);
}

export async function listProjects(db: Db, auth: AuthContext, q: ProjectListQuery): Promise<Page<Project>> {
  const page = await repo.listProjects(db, auth.accountId, q);
  const groups = await repo.groupIdsOf(
    db,
    page.rows.map((r) => r.id),
  );
  return { ...page, rows: page.rows.map((r) => toProject(r, groups.get(r.id) ?? [])) };
}

/**
 * The answer's fields picked out of a row, in the schema's order: the mapping of the lists
 * whose rows hold those fields as they are.
 */
const pick =
  <S extends TObject>(schema: S) =>
  (row: object): Static<S> =>
    Object.fromEntries(
      Object.keys(schema.properties).map((k) => [k, (row as Record<string, unknown>)[k]]),
    ) as Static<S>;

/** A list under one project: the project must be the caller's (404 otherwise). */
const inProject =
  <Q, T>(list: (db: Db, accountId: number, projectId: number, q: Q) => Promise<T>) =>
  async (db: Db, auth: AuthContext, id: number, q: Q): Promise<T> => {
    await getProjectRow(db, auth, id);
    return list(db, auth.accountId, id, q);
  };

const partsOf = <T extends PartTable>(table: T) =>
  inProject((db, _, id, q: SubListQuery) => repo.listParts(db, table, id, q));

/** The team of a project: its members with their user data (read through the users module). */
export const listTeam = inProject(async (db, accountId, id, q: SubListQuery): Promise<Page<TeamMember>> => {
  const page = await repo.listTeam(db, id, q);
  const users = await usersBasicByIds(
    db,
    accountId,
    page.rows.map((m) => m.user_id),
  );
  const rows = page.rows.map((m) => {
    const { first_name, last_name, position, active } = users.get(m.user_id)!;
    return {
      user_id: m.user_id,
      first_name,
      last_name,
      position,
      active,
      role: m.role,
      added_at: m.created_at,
    };
  });
  return { ...page, rows };
});

export const listGuests = partsOf('project_guests');
export const toGuest = pick(Guest);

export const listPhases = partsOf('project_phases');
export const toPhase = pick(Phase);

export const listMilestones = partsOf('project_milestones');
export const toMilestone = (r: Selectable<Database['project_milestones']>): Milestone => ({
  ...pick(Milestone)(r),
  completed: r.completed_at !== null,
});

export const listEpics = partsOf('project_epics');
export const toEpic = pick(Epic);

export const listPortfolios = (db: Db, auth: AuthContext, q: PortfolioListQuery) =>
  repo.listPortfolios(db, auth.accountId, q);
export const toPortfolio = pick(Portfolio);

export const listProjectGroups = (db: Db, auth: AuthContext, q: ProjectGroupListQuery) =>
  repo.listProjectGroups(db, auth.accountId, q);
export const toProjectGroup = pick(ProjectGroup);
