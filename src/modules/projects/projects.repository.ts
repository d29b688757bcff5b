import { type Insertable, type Selectable, sql, type Updateable } from 'kysely';
import type { Db } from '../../db/index.js';
import { preparedList } from '../../db/prepared.js';
import type { Database } from '../../db/schema.js';
import { idsByOwner } from '../../shared/collect.js';
import { centsAsAmount, jsonIdPages, jsonShape, storedObject } from '../../shared/json-pages.js';
import { keptTotal } from '../../shared/list-counts.js';
import { findOwned, insertReturning, updateOwnedOrThrow } from '../../shared/owned.js';
import {
  idPages,
  type Page,
  type PageParams,
  paginate,
  type Sortable,
  unfiltered,
} from '../../shared/paging.js';
import { containsAny, containsIndexed } from '../../shared/search.js';
import { toIso } from '../../shared/time.js';
import {
  type PortfolioListQuery,
  Project,
  type ProjectGroupListQuery,
  type ProjectListQuery,
} from './projects.schemas.js';
import type { PortfolioTable, ProjectGroupTable, ProjectTable } from './projects.tables.js';

export type ProjectRow = Selectable<ProjectTable>;
export type PortfolioRow = Selectable<PortfolioTable>;
export type ProjectGroupRow = Selectable<ProjectGroupTable>;

export const findProject = (db: Db, accountId: number, id: number) =>
  findOwned(db, 'projects', accountId, id);

export const PROJECT_SORTABLE: Sortable = {
  name: {},
  identifier: { nullable: true },
  status: {},
  client_id: {},
  start_date: { nullable: true },
  end_date: { nullable: true },
};

// The unfiltered list's pages, prepared: active rows and all.
const PAGES = [false, true].map((archived) =>
  idPages((db, accountId) => {
    const qb = db.selectFrom('projects').where('account_id', '=', accountId);
    return (archived ? qb : qb.where('archived_at', 'is', null)).selectAll();
  }),
);

// The same pages as the answer's JSON (SQLite): what toProject makes of a row and its groups.
const JSON_PAGES = [false, true].map((archived) =>
  jsonIdPages(
    (db, accountId) => {
      const qb = db.selectFrom('projects').where('account_id', '=', accountId);
      return (archived ? qb : qb.where('archived_at', 'is', null)).selectAll();
    },
    jsonShape(Project, {
      // Most projects are in no group: a look into the index first is cheaper than an empty list.
      project_group_ids: {
        json: sql`case when exists (select 1 from project_group_projects g where g.project_id = p.id)
          then json((select json_group_array(g.project_group_id order by g.project_group_id)
            from project_group_projects g where g.project_id = p.id)) else json('[]') end`,
      },
      billable: { flag: 'billable' },
      hourly_rate: centsAsAmount('hourly_rate'),
      budget_amount: centsAsAmount('budget_amount'),
      custom_fields: storedObject('custom_fields'),
    }),
  ),
);

/** The filtered list's query (built only when `paginate` needs it, see `listProjects`). */
function projectsQuery(db: Db, accountId: number, q: ProjectListQuery) {
  let qb = db.selectFrom('projects').selectAll().where('account_id', '=', accountId);
  if (!q.archived) qb = qb.where('archived_at', 'is', null);
  if (q.client_id !== undefined) qb = qb.where('client_id', '=', q.client_id);
  if (q.portfolio_id !== undefined) qb = qb.where('portfolio_id', '=', q.portfolio_id);
  if (q.status !== undefined) qb = qb.where('status', '=', q.status);
  if (q.project_group_id !== undefined) {
    const groupId = q.project_group_id;
    qb = qb.where('id', 'in', (eb) =>
      eb.selectFrom('project_group_projects').select('project_id').where('project_group_id', '=', groupId),
    );
  }
  if (q.user_id !== undefined) {
    const userId = q.user_id;
    qb = qb.where('id', 'in', (eb) =>
      eb.selectFrom('project_members').select('project_id').where('user_id', '=', userId),
    );
  }
  if (q.updated_since) qb = qb.where('updated_at', '>=', toIso(q.updated_since));
  if (q.q) qb = qb.where(containsIndexed(db, 'projects', ['name', 'identifier'], q.q));
  return qb;
}

export function listProjects(db: Db, accountId: number, q: ProjectListQuery) {
  return paginate(() => projectsQuery(db, accountId, q), q, {
    sortable: PROJECT_SORTABLE,
    total: unfiltered(q) ? keptTotal(db, accountId, 'projects', Boolean(q.archived)) : undefined,
    pages: PAGES[q.archived ? 1 : 0]!(db, accountId),
    jsonPages: JSON_PAGES[q.archived ? 1 : 0]!(db, accountId),
  });
}

// Prepared per number of projects (a list's page reads them on every request).
const groupsOfProjects = preparedList(0, (db: Db, projectIds: readonly unknown[]) =>
  db
    .selectFrom('project_group_projects')
    .select(['project_id', 'project_group_id'])
    .where('project_id', 'in', projectIds as number[])
    .orderBy('project_group_id'),
);

/** Project group ids of each project. */
export async function groupIdsOf(db: Db, projectIds: number[]): Promise<Map<number, number[]>> {
  if (projectIds.length === 0) return new Map();
  const rows = await groupsOfProjects(db, projectIds);
  return idsByOwner(
    projectIds,
    rows,
    (r) => r.project_id,
    (r) => r.project_group_id,
  );
}

/** The project's members (user id, role in the project, since when), by user id. */
export const listTeam = (db: Db, projectId: number, page: PageParams) =>
  paginate(
    db
      .selectFrom('project_members')
      .select(['user_id', 'role', 'hourly_rate', 'created_at'])
      .where('project_id', '=', projectId)
      .orderBy('user_id'),
    page,
  );

/** The tables of a project's parts: rows with a `project_id`, listed under the project. */
export type PartTable = 'project_guests' | 'project_phases' | 'project_milestones' | 'project_epics';

/** One project's rows of a part table: phases in their order (`position`, then id), the others by id. */
export function listParts<T extends PartTable>(
  db: Db,
  table: T,
  projectId: number,
  page: PageParams,
): Promise<Page<Selectable<Database[T]>>> {
  // One query for four tables: Kysely cannot type a column of a table chosen at run time.
  let qb = db
    .selectFrom(table as PartTable)
    .selectAll()
    .where('project_id', '=', projectId);
  if (table === 'project_phases') qb = qb.orderBy('position' as never);
  return paginate(qb.orderBy('id'), page) as Promise<Page<Selectable<Database[T]>>>;
}

export function listPortfolios(db: Db, accountId: number, q: PortfolioListQuery) {
  let qb = db.selectFrom('portfolios').selectAll().where('account_id', '=', accountId);
  if (!q.archived) qb = qb.where('archived_at', 'is', null);
  if (q.updated_since) qb = qb.where('updated_at', '>=', toIso(q.updated_since));
  if (q.q) qb = qb.where((eb) => containsAny(eb, ['name'], q.q!));
  return paginate(qb, q, {
    sortable: { name: {} },
    total: unfiltered(q) ? keptTotal(db, accountId, 'portfolios', Boolean(q.archived)) : undefined,
  });
}

export function listProjectGroups(db: Db, accountId: number, q: ProjectGroupListQuery) {
  let qb = db.selectFrom('project_groups').selectAll().where('account_id', '=', accountId);
  if (q.updated_since) qb = qb.where('updated_at', '>=', toIso(q.updated_since));
  if (q.q) qb = qb.where((eb) => containsAny(eb, ['name'], q.q!));
  return paginate(qb.orderBy('id'), q);
}

/** The module's tables whose rows have an id (what imports create and later records name). */
type RowsWithId =
  | 'portfolios'
  | 'project_groups'
  | 'projects'
  | 'project_phases'
  | 'project_milestones'
  | 'project_epics';
/** The module's tables that hang off a project without an id of their own in import files. */
type ProjectLinks = 'project_group_projects' | 'project_members' | 'project_guests';

/** Inserts one row (imports), returning its id. */
export async function insertRow<T extends RowsWithId>(db: Db, table: T, values: Insertable<Database[T]>) {
  // One statement for six tables: the union of their insert types is not expressible per call.
  const row = await db
    .insertInto(table as RowsWithId)
    .values(values as never)
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Inserts a project's membership, guest or group link (imports). */
export async function insertLink<T extends ProjectLinks>(db: Db, table: T, values: Insertable<Database[T]>) {
  await db
    .insertInto(table as ProjectLinks)
    .values(values as never)
    .execute();
}

export const insertProject = (db: Db, values: Insertable<ProjectTable>): Promise<ProjectRow> =>
  insertReturning(db, 'projects', values);

export const updateProject = (db: Db, accountId: number, id: number, values: Updateable<ProjectTable>) =>
  updateOwnedOrThrow(db, 'projects', accountId, id, values);

/** Another project of the account with this identifier (project numbers are unique). */
export const projectByIdentifier = (db: Db, accountId: number, identifier: string) =>
  db
    .selectFrom('projects')
    .select('id')
    .where('account_id', '=', accountId)
    .where('identifier', '=', identifier)
    .executeTakeFirst();

/** Which of these portfolio or project group ids are of the account. */
export async function ownIds(
  db: Db,
  table: 'portfolios' | 'project_groups',
  accountId: number,
  ids: readonly number[],
): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom(table)
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .execute();
  return new Set(rows.map((r) => Number(r.id)));
}

/** Replaces the project's group links with these groups. */
export async function setGroups(db: Db, projectId: number, groupIds: readonly number[]): Promise<void> {
  await db.deleteFrom('project_group_projects').where('project_id', '=', projectId).execute();
  if (groupIds.length > 0)
    await db
      .insertInto('project_group_projects')
      .values(groupIds.map((project_group_id) => ({ project_group_id, project_id: projectId })))
      .execute();
}

export const findMember = (db: Db, projectId: number, userId: number) =>
  db
    .selectFrom('project_members')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('user_id', '=', userId)
    .executeTakeFirst();

export async function insertMember(db: Db, values: Insertable<Database['project_members']>): Promise<void> {
  await db.insertInto('project_members').values(values).execute();
}

export async function updateMember(
  db: Db,
  projectId: number,
  userId: number,
  values: Updateable<Database['project_members']>,
): Promise<void> {
  await db
    .updateTable('project_members')
    .set(values)
    .where('project_id', '=', projectId)
    .where('user_id', '=', userId)
    .execute();
}

/** Removes a member; whether there was one. */
export async function deleteMember(db: Db, projectId: number, userId: number): Promise<boolean> {
  const r = await db
    .deleteFrom('project_members')
    .where('project_id', '=', projectId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}
