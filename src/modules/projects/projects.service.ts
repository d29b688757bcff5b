import type { Selectable } from 'kysely';
import type { Static, TObject } from 'typebox';
import type { Db } from '../../db/index.js';
import type { Database } from '../../db/schema.js';
import { transact } from '../../db/transact.js';
import { changedFields } from '../../shared/changes.js';
import { AppError, type FieldError, notFound, validationFailed } from '../../shared/errors.js';
import { fromCents, toCents } from '../../shared/money.js';
import type { Page } from '../../shared/paging.js';
import { nowIso } from '../../shared/time.js';
import type { AuthContext } from '../../shared/tokens.js';
import { parseCustomFieldValues, validateCustomFields } from '../custom-fields/custom-fields.public.js';
import { userExists, usersBasicByIds } from '../users/users.public.js';
import { clientInAccount } from './project-refs.read-model.js';
import { periodErrors, unknownIdErrors } from './projects.domain.js';
import type { PartTable, ProjectRow } from './projects.repository.js';
import * as repo from './projects.repository.js';
import {
  type BillingMode,
  Epic,
  Guest,
  Milestone,
  Phase,
  Portfolio,
  type PortfolioListQuery,
  type Project,
  type ProjectCreate,
  ProjectGroup,
  type ProjectGroupListQuery,
  type ProjectListQuery,
  type ProjectStatus,
  type ProjectUpdate,
  type SubListQuery,
  type TeamMember,
  type TeamMemberPut,
} from './projects.schemas.js';

const money = (cents: number | null) => (cents === null ? null : fromCents(cents));

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
    billing_mode: r.billing_mode as BillingMode,
    hourly_rate: money(r.hourly_rate),
    budget_amount: money(r.budget_amount),
    currency: r.currency,
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
      hourly_rate: money(m.hourly_rate),
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

/** Money from the wire in cents (the schema has refused more than two decimals). */
const cents = (value: number | null | undefined) =>
  value === undefined ? undefined : value === null ? null : toCents(value)!;

const identifierTaken = (identifier: string, holder: number) =>
  new AppError('already_exists', `Project ${holder} already has identifier "${identifier}"`, {
    errors: [{ field: 'identifier', message: 'is already in use' }],
  });

type Body = Omit<ProjectUpdate, 'custom_fields' | 'project_group_ids'>;

/**
 * The references a write names are of the account (422 naming each field), the period is in
 * order, the identifier is free (409); answers the custom field values to store.
 */
async function check(
  db: Db,
  auth: AuthContext,
  body: ProjectUpdate,
  state: { start_date: string | null; end_date: string | null },
  current?: ProjectRow,
): Promise<string | undefined> {
  const errors: FieldError[] = [];
  if (body.client_id !== undefined && !(await clientInAccount(db, auth.accountId, body.client_id)))
    errors.push({ field: 'client_id', message: 'no such client' });
  if (body.portfolio_id != null) {
    const own = await repo.ownIds(db, 'portfolios', auth.accountId, [body.portfolio_id]);
    if (!own.has(body.portfolio_id)) errors.push({ field: 'portfolio_id', message: 'no such portfolio' });
  }
  if (body.project_group_ids) {
    const own = await repo.ownIds(db, 'project_groups', auth.accountId, body.project_group_ids);
    errors.push(...unknownIdErrors('project_group_ids', body.project_group_ids, own));
  }
  errors.push(...periodErrors(state.start_date, state.end_date));
  let custom: string | undefined;
  try {
    // On create, required fields must be given; an update that leaves them out keeps them.
    if (body.custom_fields !== undefined || !current) {
      const values = await validateCustomFields(db, auth.accountId, 'project', body.custom_fields, {
        current: current ? parseCustomFieldValues(current.custom_fields) : {},
      });
      custom = JSON.stringify(values);
    }
  } catch (err) {
    if (!(err instanceof AppError) || !err.errors) throw err;
    errors.push(...err.errors);
  }
  if (errors.length > 0) throw validationFailed(errors);
  if (body.identifier) {
    const holder = await repo.projectByIdentifier(db, auth.accountId, body.identifier);
    if (holder && holder.id !== current?.id) throw identifierTaken(body.identifier, holder.id);
  }
  return custom;
}

/** A body's columns: money in cents, booleans as 0/1. */
function columns(body: Body) {
  const { hourly_rate, budget_amount, billable, ...rest } = body;
  return {
    ...rest,
    ...(hourly_rate !== undefined ? { hourly_rate: cents(hourly_rate) } : {}),
    ...(budget_amount !== undefined ? { budget_amount: cents(budget_amount) } : {}),
    ...(billable !== undefined ? { billable: billable ? 1 : 0 } : {}),
  };
}

async function answer(db: Db, row: ProjectRow): Promise<Project> {
  const groups = await repo.groupIdsOf(db, [row.id]);
  return toProject(row, groups.get(row.id) ?? []);
}

/** POST /projects (beyond the specification). */
export function createProject(db: Db, auth: AuthContext, body: ProjectCreate): Promise<Project> {
  return transact(db, async (trx) => {
    const custom = await check(trx, auth, body, {
      start_date: body.start_date ?? null,
      end_date: body.end_date ?? null,
    });
    const { custom_fields: _, project_group_ids, ...fields } = body;
    const now = nowIso();
    const row = await repo.insertProject(trx, {
      account_id: auth.accountId,
      portfolio_id: null,
      identifier: null,
      description: null,
      start_date: null,
      end_date: null,
      budget_minutes: null,
      ...columns(fields),
      client_id: body.client_id,
      name: body.name,
      custom_fields: custom!,
      archived_at: null,
      created_at: now,
      updated_at: now,
    });
    if (project_group_ids?.length) await repo.setGroups(trx, row.id, project_group_ids);
    return answer(trx, row);
  });
}

/** PATCH /projects/{id}: the given fields; nothing written when nothing differs. */
export function updateProject(db: Db, auth: AuthContext, id: number, body: ProjectUpdate): Promise<Project> {
  return transact(db, async (trx) => {
    const row = await getProjectRow(trx, auth, id);
    const custom = await check(
      trx,
      auth,
      body,
      {
        start_date: body.start_date !== undefined ? body.start_date : row.start_date,
        end_date: body.end_date !== undefined ? body.end_date : row.end_date,
      },
      row,
    );
    const { custom_fields: _, project_group_ids, ...fields } = body;
    const values = { ...columns(fields), ...(custom !== undefined ? { custom_fields: custom } : {}) };
    const groups = (await repo.groupIdsOf(trx, [id])).get(id) ?? [];
    const groupsChange =
      project_group_ids !== undefined &&
      [...project_group_ids].sort((a, b) => a - b).join() !== [...groups].sort((a, b) => a - b).join();
    if (Object.keys(changedFields(row, values)).length === 0 && !groupsChange) return answer(trx, row);
    if (groupsChange) await repo.setGroups(trx, id, project_group_ids!);
    // The groups live in a table of their own: updated_at tells the feed the project changed.
    return answer(
      trx,
      await repo.updateProject(trx, auth.accountId, id, { ...values, updated_at: nowIso() }),
    );
  });
}

/** DELETE /projects/{id} archives, POST …/restore restores; twice changes nothing. */
export function setProjectArchived(
  db: Db,
  auth: AuthContext,
  id: number,
  archived: boolean,
): Promise<Project> {
  return transact(db, async (trx) => {
    const row = await getProjectRow(trx, auth, id);
    if (Boolean(row.archived_at) === archived) return answer(trx, row);
    const now = nowIso();
    return answer(
      trx,
      await repo.updateProject(trx, auth.accountId, id, {
        archived_at: archived ? now : null,
        updated_at: now,
      }),
    );
  });
}

/** The team member's user is of the account: 404 like any id in the path. */
async function teamUser(db: Db, auth: AuthContext, userId: number): Promise<void> {
  if (!(await userExists(db, auth.accountId, userId))) throw notFound('User');
}

/** The team changed: the project's updated_at moves, so the change feed shows an update. */
const touch = (db: Db, auth: AuthContext, id: number) =>
  repo.updateProject(db, auth.accountId, id, { updated_at: nowIso() });

/**
 * PUT /projects/{id}/team/{user_id}: adds the user to the team or changes their role and
 * rate. Fields left out keep their value (a new member: role `member`, no rate).
 */
export function putTeamMember(
  db: Db,
  auth: AuthContext,
  id: number,
  userId: number,
  body: TeamMemberPut,
): Promise<TeamMember> {
  return transact(db, async (trx) => {
    await getProjectRow(trx, auth, id);
    await teamUser(trx, auth, userId);
    const current = await repo.findMember(trx, id, userId);
    const values = {
      ...(body.role !== undefined ? { role: body.role } : {}),
      ...(body.hourly_rate !== undefined ? { hourly_rate: cents(body.hourly_rate) } : {}),
    };
    if (!current) {
      await repo.insertMember(trx, { project_id: id, user_id: userId, ...values, created_at: nowIso() });
      await touch(trx, auth, id);
    } else if (Object.keys(changedFields(current, values)).length > 0) {
      await repo.updateMember(trx, id, userId, values);
      await touch(trx, auth, id);
    }
    const member = (await repo.findMember(trx, id, userId))!;
    const user = (await usersBasicByIds(trx, auth.accountId, [userId])).get(userId)!;
    return {
      user_id: userId,
      first_name: user.first_name,
      last_name: user.last_name,
      position: user.position,
      active: user.active,
      role: member.role,
      hourly_rate: money(member.hourly_rate),
      added_at: member.created_at,
    };
  });
}

/** DELETE /projects/{id}/team/{user_id}: removing a user who is not on the team changes nothing. */
export function removeTeamMember(db: Db, auth: AuthContext, id: number, userId: number): Promise<void> {
  return transact(db, async (trx) => {
    await getProjectRow(trx, auth, id);
    await teamUser(trx, auth, userId);
    if (await repo.deleteMember(trx, id, userId)) await touch(trx, auth, id);
  });
}
