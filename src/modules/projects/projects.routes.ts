import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifySchema } from 'fastify';
import type { Static, TSchema } from 'typebox';
import type { Db } from '../../db/index.js';
import { listResponse, type Page } from '../../shared/paging.js';
import { type App, described, getRoute, listRoute } from '../../shared/route-builders.js';
import { IdParams, List } from '../../shared/schemas.js';
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
  ProjectGroup,
  ProjectGroupListQuery,
  ProjectListQuery,
  SubListQuery,
  TeamMember,
} from './projects.schemas.js';
import * as service from './projects.service.js';

const tags = ['Projects'];

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
      config: { scopes: [], pageCache: true },
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
      config: { scopes: [], pageCache: true },
      summary: 'Retrieve a project',
      item: Project,
    },
    service.getProject,
  );
  for (const d of SUB_LISTS) subListRoute(app, d);
  listRoute(
    app,
    {
      path: '/portfolios',
      tags: ['Portfolios'],
      config: { scopes: [], pageCache: true },
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
