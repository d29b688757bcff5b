import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listResponse } from '../../shared/paging.js';
import { Data, IdParams, List } from '../../shared/schemas.js';
import { ProjectTaskListQuery, Task } from '../tasks/tasks.schemas.js';
import { listTasks } from '../tasks/tasks.service.js';
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
const same = <T>(x: T) => x;

export const projectsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/projects',
    {
      config: { scopes: [] },
      schema: {
        tags,
        summary: 'List projects',
        description: 'Archived projects are left out unless `archived=true`.',
        querystring: ProjectListQuery,
        response: { 200: List(Project) },
      },
    },
    async (req, reply) =>
      listResponse(req, reply, await service.listProjects(app.db, req.auth, req.query), same),
  );

  app.get(
    '/projects/:id',
    {
      config: { scopes: [] },
      schema: { tags, summary: 'Retrieve a project', params: IdParams, response: { 200: Data(Project) } },
    },
    async (req) => ({ data: await service.getProject(app.db, req.auth, req.params.id) }),
  );

  app.get(
    '/projects/:id/team',
    {
      config: { scopes: [] },
      schema: {
        tags,
        summary: 'Team of a project',
        description: 'Users working on the project, each with their role in it.',
        params: IdParams,
        querystring: SubListQuery,
        response: { 200: List(TeamMember) },
      },
    },
    async (req, reply) =>
      listResponse(
        req,
        reply,
        await service.listTeam(app.db, req.auth, req.params.id, req.query),
        service.toTeamMember,
      ),
  );

  app.get(
    '/projects/:id/guests',
    {
      config: { scopes: [] },
      schema: {
        tags,
        summary: 'Guests of a project',
        description: 'People outside the account with access to the project.',
        params: IdParams,
        querystring: SubListQuery,
        response: { 200: List(Guest) },
      },
    },
    async (req, reply) =>
      listResponse(
        req,
        reply,
        await service.listGuests(app.db, req.auth, req.params.id, req.query),
        service.toGuest,
      ),
  );

  app.get(
    '/projects/:id/phases',
    {
      config: { scopes: ['task-management:read'] },
      schema: {
        tags,
        summary: 'Phases of a project',
        description: 'In their order (`position`, then id).',
        params: IdParams,
        querystring: SubListQuery,
        response: { 200: List(Phase) },
      },
    },
    async (req, reply) =>
      listResponse(
        req,
        reply,
        await service.listPhases(app.db, req.auth, req.params.id, req.query),
        service.toPhase,
      ),
  );

  app.get(
    '/projects/:id/milestones',
    {
      config: { scopes: ['task-management:read'] },
      schema: {
        tags,
        summary: 'Milestones of a project',
        params: IdParams,
        querystring: SubListQuery,
        response: { 200: List(Milestone) },
      },
    },
    async (req, reply) =>
      listResponse(
        req,
        reply,
        await service.listMilestones(app.db, req.auth, req.params.id, req.query),
        service.toMilestone,
      ),
  );

  app.get(
    '/projects/:id/epics',
    {
      config: { scopes: ['task-management:read'] },
      schema: {
        tags,
        summary: 'Epics of a project',
        params: IdParams,
        querystring: SubListQuery,
        response: { 200: List(Epic) },
      },
    },
    async (req, reply) =>
      listResponse(
        req,
        reply,
        await service.listEpics(app.db, req.auth, req.params.id, req.query),
        service.toEpic,
      ),
  );

  app.get(
    '/projects/:id/tasks',
    {
      config: { scopes: ['task-management:read'] },
      schema: {
        tags,
        summary: 'Tasks of a project',
        description: 'The filters of GET /tasks; archived tasks are left out unless `archived=true`.',
        params: IdParams,
        querystring: ProjectTaskListQuery,
        response: { 200: List(Task) },
      },
    },
    async (req, reply) => {
      await service.getProjectRow(app.db, req.auth, req.params.id);
      const page = await listTasks(app.db, req.auth, { ...req.query, project_id: req.params.id });
      return listResponse(req, reply, page, same);
    },
  );

  app.get(
    '/portfolios',
    {
      config: { scopes: [] },
      schema: {
        tags: ['Portfolios'],
        summary: 'List portfolios',
        description:
          'Archived portfolios are left out unless `archived=true`. Filter projects with `?portfolio_id=`.',
        querystring: PortfolioListQuery,
        response: { 200: List(Portfolio) },
      },
    },
    async (req, reply) =>
      listResponse(
        req,
        reply,
        await service.listPortfolios(app.db, req.auth, req.query),
        service.toPortfolio,
      ),
  );

  app.get(
    '/project-groups',
    {
      config: { scopes: [] },
      schema: {
        tags: ['Project groups'],
        summary: 'List project groups',
        description:
          'Filter projects with `?project_group_id=`; a project lists its groups in `project_group_ids`.',
        querystring: ProjectGroupListQuery,
        response: { 200: List(ProjectGroup) },
      },
    },
    async (req, reply) =>
      listResponse(
        req,
        reply,
        await service.listProjectGroups(app.db, req.auth, req.query),
        service.toProjectGroup,
      ),
  );
};
