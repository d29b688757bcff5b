import type { Db } from '../../db/index.js';
import { notFound } from '../../shared/errors.js';
import type { Page } from '../../shared/paging.js';
import type { AuthContext } from '../../shared/tokens.js';
import { parseCustomFieldValues } from '../custom-fields/custom-fields.public.js';
import type {
  EpicRow,
  GuestRow,
  MilestoneRow,
  PhaseRow,
  PortfolioRow,
  ProjectGroupRow,
  ProjectRow,
} from './projects.repository.js';
import * as repo from './projects.repository.js';
import type {
  Epic,
  Guest,
  Milestone,
  Phase,
  Portfolio,
  PortfolioListQuery,
  Project,
  ProjectGroup,
  ProjectGroupListQuery,
  ProjectListQuery,
  ProjectStatus,
  SubListQuery,
  TeamMember,
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

/** A list under one project: the project must be the caller's (404 otherwise). */
const inProject =
  <T>(list: (db: Db, projectId: number, q: SubListQuery) => Promise<T>) =>
  async (db: Db, auth: AuthContext, id: number, q: SubListQuery): Promise<T> => {
    await getProjectRow(db, auth, id);
    return list(db, id, q);
  };

export const listTeam = inProject(repo.listTeam);

export function toTeamMember(r: Awaited<ReturnType<typeof repo.listTeam>>['rows'][number]): TeamMember {
  return {
    user_id: r.user_id,
    first_name: r.first_name,
    last_name: r.last_name,
    position: r.position,
    active: Boolean(r.active),
    role: r.role,
    added_at: r.created_at,
  };
}

export const listGuests = inProject(repo.listGuests);

export const toGuest = (r: GuestRow): Guest => ({
  id: r.id,
  contact_id: r.contact_id,
  name: r.name,
  email: r.email,
  created_at: r.created_at,
});

export const listPhases = inProject(repo.listPhases);

export const toPhase = (r: PhaseRow): Phase => ({
  id: r.id,
  project_id: r.project_id,
  name: r.name,
  description: r.description,
  position: r.position,
  start_date: r.start_date,
  end_date: r.end_date,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

export const listMilestones = inProject(repo.listMilestones);

export const toMilestone = (r: MilestoneRow): Milestone => ({
  id: r.id,
  project_id: r.project_id,
  name: r.name,
  description: r.description,
  due_date: r.due_date,
  completed: r.completed_at !== null,
  completed_at: r.completed_at,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

export const listEpics = inProject(repo.listEpics);

export const toEpic = (r: EpicRow): Epic => ({
  id: r.id,
  project_id: r.project_id,
  name: r.name,
  description: r.description,
  status: r.status as Epic['status'],
  start_date: r.start_date,
  end_date: r.end_date,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

export const listPortfolios = (db: Db, auth: AuthContext, q: PortfolioListQuery) =>
  repo.listPortfolios(db, auth.accountId, q);

export const toPortfolio = (r: PortfolioRow): Portfolio => ({
  id: r.id,
  name: r.name,
  description: r.description,
  archived_at: r.archived_at,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

export const listProjectGroups = (db: Db, auth: AuthContext, q: ProjectGroupListQuery) =>
  repo.listProjectGroups(db, auth.accountId, q);

export const toProjectGroup = (r: ProjectGroupRow): ProjectGroup => ({
  id: r.id,
  name: r.name,
  description: r.description,
  created_at: r.created_at,
  updated_at: r.updated_at,
});
