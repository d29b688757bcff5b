import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifySchema } from 'fastify';
import { type Static, type TSchema, Type } from 'typebox';
import type { Db } from '../../db/index.js';
import { createRoute, updateRoute } from '../../shared/archivable.js';
import { listResponse, type Page } from '../../shared/paging.js';
import { type App, described, getRoute, listRoute } from '../../shared/route-builders.js';
import { Data, IdParams, List } from '../../shared/schemas.js';
import type { AuthContext } from '../../shared/tokens.js';
import { listTasks, ProjectTaskListQuery, Task } from '../tasks/tasks.public.js';
import {
  Epic,
  Guest,
  Milestone,
  Phase,
  Portfolio,
  PortfolioListQuery,
  Project,
  ProjectCreate,
  ProjectGroup,
  ProjectGroupListQuery,
  ProjectListQuery,
  ProjectUpdate,
  SubListQuery,
  TeamMember,
  TeamMemberPut,
  TeamParams,
} from './projects.schemas.js';
import * as service from './projects.service.js';

const tags = ['Projects'];
const write = { scopes: ['project:write'] };
const BEYOND = 'Beyond the specification (projects came in only through the import).';
const spec = {
  path: '/projects',
  tags,
  write,
  schema: Project,
  toData: (p: Project) => p,
  create: ProjectCreate,
  insert: service.createProject,
  update: ProjectUpdate,
  change: service.updateProject,
};

/**
 * One GET list under `/projects/{id}` (404 when the project is not the caller's): the shape of
 * shared/route-builders.ts's listRoute with the project's id in the path, which that builder
 * does not take. Every such list is a row of the table below, registered by `subListRoute`.
 */
interface SubList {
  url: string;
  scopes: readonly string[];
  summary: string;
  description?: string;
  query: TSchema;
  item: TSchema;
  list: (db: Db, auth: AuthContext, projectId: number, query: never) => Promise<Page<unknown>>;
  map?: (row: never) => unknown;
}

/** A row of the table, type-checked: `list`, `map` and the query schema agree. */
const sub = <Q extends TSchema, R>(
  d: Omit<SubList, 'query' | 'list' | 'map'> & {
    query: Q;
    list: (db: Db, auth: AuthContext, projectId: number, query: Static<Q>) => Promise<Page<R>>;
    map?: (row: R) => unknown;
  },
): SubList => d;

function subListRoute(app: App, d: SubList): void {
  const schema: FastifySchema = {
    ...described({ tags, summary: d.summary, description: d.description }),
    params: IdParams,
    querystring: d.query,
    response: { 200: List(d.item) },
  };
  app.get(d.url, { config: { scopes: d.scopes }, schema }, async (req, reply) => {
    const { id } = req.params as { id: number };
    const page = await d.list(app.db, req.auth, id, req.query as never);
    return listResponse(req, reply, page, (d.map ?? ((x) => x)) as (row: unknown) => unknown);
  });
}

const SUB_LISTS: SubList[] = [
  sub({
    url: '/projects/:id/team',
    scopes: [],
    summary: 'Team of a project',
    description: 'Users working on the project, each with their role in it.',
    query: SubListQuery,
    item: TeamMember,
    list: service.listTeam,
  }),
  sub({
    url: '/projects/:id/guests',
    scopes: [],
    summary: 'Guests of a project',
    description: 'People outside the account with access to the project.',
    query: SubListQuery,
    item: Guest,
    list: service.listGuests,
    map: service.toGuest,
  }),
  sub({
    url: '/projects/:id/phases',
    scopes: ['task-management:read'],
    summary: 'Phases of a project',
    description: 'In their order (`position`, then id).',
    query: SubListQuery,
    item: Phase,
    list: service.listPhases,
    map: service.toPhase,
  }),
  sub({
    url: '/projects/:id/milestones',
    scopes: ['task-management:read'],
    summary: 'Milestones of a project',
    query: SubListQuery,
    item: Milestone,
    list: service.listMilestones,
    map: service.toMilestone,
  }),
  sub({
    url: '/projects/:id/epics',
    scopes: ['task-management:read'],
    summary: 'Epics of a project',
    query: SubListQuery,
    item: Epic,
    list: service.listEpics,
    map: service.toEpic,
  }),
  sub({
    url: '/projects/:id/tasks',
    scopes: ['task-management:read'],
    summary: 'Tasks of a project',
    description: 'The filters of GET /tasks; archived tasks are left out unless `archived=true`.',
    query: ProjectTaskListQuery,
    item: Task,
    list: async (db, auth, id, q) => {
      await service.getProjectRow(db, auth, id);
      return listTasks(db, auth, { ...q, project_id: id });
    },
  }),
];

export const projectsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  listRoute(
    app,
    {
      path: '/projects',
      tags,
      config: { scopes: [], pageCache: ['projects', 'project_group_projects', 'project_members'] },
      summary: 'List projects',
      description: 'Archived projects are left out unless `archived=true`.',
      querystring: ProjectListQuery,
      item: Project,
    },
    service.listProjects,
  );
  getRoute(
    app,
    {
      path: '/projects/:id',
      tags,
      config: { scopes: [], pageCache: ['projects', 'project_group_projects', 'project_members'] },
      summary: 'Retrieve a project',
      item: Project,
    },
    service.getProject,
  );
  createRoute(app, spec, {
    summary: 'Create a project',
    description: `${BEYOND} \`client_id\`, \`portfolio_id\` and \`project_group_ids\` must be of the account (422 naming the field); custom field values are checked against the project definitions.`,
    conflict: '`already_exists`: another project of the account has this `identifier`',
  });
  updateRoute(app, spec, {
    summary: 'Update a project',
    description: `${BEYOND} Changes the given fields; \`project_group_ids\` replaces the groups, \`custom_fields\` keys left out keep their value. 409 \`already_exists\` when another project has the \`identifier\`.`,
  });
  app.delete(
    '/projects/:id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Archive a project',
        description: `${BEYOND} Sets \`archived_at\`: the project leaves the lists unless \`archived=true\` and stays readable by id; its tasks and efforts stay. Archiving twice changes nothing.`,
        params: IdParams,
        response: { 204: Type.Null({ description: 'Archived' }) },
      },
    },
    async (req, reply) => {
      await service.setProjectArchived(app.db, req.auth, req.params.id, true);
      return reply.code(204).send(null);
    },
  );
  app.post(
    '/projects/:id/restore',
    {
      config: write,
      schema: {
        tags,
        summary: 'Restore an archived project',
        description: BEYOND,
        params: IdParams,
        response: { 200: Data(Project) },
      },
    },
    async (req) => ({ data: await service.setProjectArchived(app.db, req.auth, req.params.id, false) }),
  );
  for (const d of SUB_LISTS) subListRoute(app, d);
  app.put(
    '/projects/:id/team/:user_id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Add or change a team member',
        description: `${BEYOND} Adds the user to the project's team, or changes their \`role\` (default \`member\`) and \`hourly_rate\` (their sale rate on this project; \`null\` clears it). Fields left out keep their value. A user of another account is a 404. The project's \`updated_at\` moves with every change of its team.`,
        params: TeamParams,
        body: TeamMemberPut,
        response: { 200: Data(TeamMember) },
      },
    },
    async (req) => ({
      data: await service.putTeamMember(app.db, req.auth, req.params.id, req.params.user_id, req.body),
    }),
  );
  app.delete(
    '/projects/:id/team/:user_id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Remove a team member',
        description: `${BEYOND} Removing a user who is not on the team changes nothing. Their efforts on the project stay.`,
        params: TeamParams,
        response: { 204: Type.Null({ description: 'Removed' }) },
      },
    },
    async (req, reply) => {
      await service.removeTeamMember(app.db, req.auth, req.params.id, req.params.user_id);
      return reply.code(204).send(null);
    },
  );
  listRoute(
    app,
    {
      path: '/portfolios',
      tags: ['Portfolios'],
      config: { scopes: [], pageCache: ['portfolios', 'project_group_projects'] },
      summary: 'List portfolios',
      description:
        'Archived portfolios are left out unless `archived=true`. Filter projects with `?portfolio_id=`.',
      querystring: PortfolioListQuery,
      item: Portfolio,
    },
    service.listPortfolios,
    service.toPortfolio,
  );
  listRoute(
    app,
    {
      path: '/project-groups',
      tags: ['Project groups'],
      config: { scopes: [] },
      summary: 'List project groups',
      description:
        'Filter projects with `?project_group_id=`; a project lists its groups in `project_group_ids`.',
      querystring: ProjectGroupListQuery,
      item: ProjectGroup,
    },
    service.listProjectGroups,
    service.toProjectGroup,
  );
};
