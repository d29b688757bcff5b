import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Static, TSchema } from 'typebox';
import type { Db } from '../../db/index.js';
import { listResponse, type Page } from '../../shared/paging.js';
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
  ProjectGroup,
  ProjectGroupListQuery,
  ProjectListQuery,
  SubListQuery,
  TeamMember,
} from './projects.schemas.js';
import * as service from './projects.service.js';

const same = <T>(x: T) => x;

/**
 * One GET list route of the module: its document (tags, summary, description, query, item) and
 * how it reads (`list`, with the project's id for the lists under `/projects/{id}`) and maps a
 * page. Every list of the module is a row of the tables below, registered by `listRoute`.
 */
interface ListDef {
  url: string;
  tags: string[];
  scopes: readonly string[];
  summary: string;
  description?: string;
  query: TSchema;
  item: TSchema;
  list: (db: Db, auth: AuthContext, projectId: number, query: never) => Promise<Page<unknown>>;
  map: (row: never) => unknown;
}

/** A row of a table, type-checked: `list`, `map` and the query schema agree. */
const def = <Q extends TSchema, R>(
  d: Omit<ListDef, 'query' | 'list' | 'map' | 'tags'> & {
    tags?: string[];
    query: Q;
    list: (db: Db, auth: AuthContext, projectId: number, query: Static<Q>) => Promise<Page<R>>;
    map: (row: R) => unknown;
  },
): ListDef => ({ tags: ['Projects'], ...d });

function listRoute(app: FastifyInstance, d: ListDef): void {
  const underProject = d.url.includes(':id');
  app.get(
    d.url,
    {
      config: { scopes: d.scopes },
      schema: {
        tags: d.tags,
        summary: d.summary,
        ...(d.description === undefined ? {} : { description: d.description }),
        ...(underProject ? { params: IdParams } : {}),
        querystring: d.query,
        response: { 200: List(d.item) },
      },
    },
    async (req, reply) => {
      const { id } = req.params as { id: number };
      const page = await d.list(app.db, req.auth, id, req.query as never);
      return listResponse(req, reply, page, d.map as (row: unknown) => unknown);
    },
  );
}

const PROJECTS = def({
  url: '/projects',
  scopes: [],
  summary: 'List projects',
  description: 'Archived projects are left out unless `archived=true`.',
  query: ProjectListQuery,
  item: Project,
  list: (db, auth, _, q) => service.listProjects(db, auth, q),
  map: same,
});

/** The lists under one project (404 when the project is not the caller's), then the groupings. */
const LISTS: ListDef[] = [
  def({
    url: '/projects/:id/team',
    scopes: [],
    summary: 'Team of a project',
    description: 'Users working on the project, each with their role in it.',
    query: SubListQuery,
    item: TeamMember,
    list: service.listTeam,
    map: same,
  }),
  def({
    url: '/projects/:id/guests',
    scopes: [],
    summary: 'Guests of a project',
    description: 'People outside the account with access to the project.',
    query: SubListQuery,
    item: Guest,
    list: service.listGuests,
    map: service.toGuest,
  }),
  def({
    url: '/projects/:id/phases',
    scopes: ['task-management:read'],
    summary: 'Phases of a project',
    description: 'In their order (`position`, then id).',
    query: SubListQuery,
    item: Phase,
    list: service.listPhases,
    map: service.toPhase,
  }),
  def({
    url: '/projects/:id/milestones',
    scopes: ['task-management:read'],
    summary: 'Milestones of a project',
    query: SubListQuery,
    item: Milestone,
    list: service.listMilestones,
    map: service.toMilestone,
  }),
  def({
    url: '/projects/:id/epics',
    scopes: ['task-management:read'],
    summary: 'Epics of a project',
    query: SubListQuery,
    item: Epic,
    list: service.listEpics,
    map: service.toEpic,
  }),
  def({
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
    map: same,
  }),
  def({
    url: '/portfolios',
    tags: ['Portfolios'],
    scopes: [],
    summary: 'List portfolios',
    description:
      'Archived portfolios are left out unless `archived=true`. Filter projects with `?portfolio_id=`.',
    query: PortfolioListQuery,
    item: Portfolio,
    list: (db, auth, _, q) => service.listPortfolios(db, auth, q),
    map: service.toPortfolio,
  }),
  def({
    url: '/project-groups',
    tags: ['Project groups'],
    scopes: [],
    summary: 'List project groups',
    description:
      'Filter projects with `?project_group_id=`; a project lists its groups in `project_group_ids`.',
    query: ProjectGroupListQuery,
    item: ProjectGroup,
    list: (db, auth, _, q) => service.listProjectGroups(db, auth, q),
    map: service.toProjectGroup,
  }),
];

export const projectsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  listRoute(app, PROJECTS);
  app.get(
    '/projects/:id',
    {
      config: { scopes: [] },
      schema: {
        tags: ['Projects'],
        summary: 'Retrieve a project',
        params: IdParams,
        response: { 200: Data(Project) },
      },
    },
    async (req) => ({ data: await service.getProject(app.db, req.auth, req.params.id) }),
  );
  for (const d of LISTS) listRoute(app, d);
};
