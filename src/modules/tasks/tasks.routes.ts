import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { EXTERNAL_ID_CONFLICT, ExternalIdBody, externalIdDescription } from '../../shared/external-id.js';
import { listResponse } from '../../shared/paging.js';
import { Data, IdParams, List, problemResponse } from '../../shared/schemas.js';
import { Task, TaskCreate, TaskListQuery, TaskParams, TaskUpdate } from './tasks.schemas.js';
import * as service from './tasks.service.js';
import { uploadRoute } from './upload-route.js';

const tags = ['Tasks'];

export const tasksRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/tasks',
    {
      config: { scopes: ['task-management:read'], pageCache: ['tasks', 'files'] },
      schema: {
        tags,
        summary: 'List tasks',
        description:
          'Archived tasks are left out unless `archived=true`. `due_from`/`due_to` bound `due_date`.',
        querystring: TaskListQuery,
        response: { 200: List(Task) },
      },
    },
    async (req, reply) =>
      listResponse(req, reply, await service.listTasks(app.db, req.auth, req.query), (t) => t),
  );

  app.post(
    '/tasks',
    {
      config: { scopes: ['task-management:write'] },
      schema: {
        tags,
        summary: 'Create a task',
        description:
          'Phase, milestone and epic must belong to `project_id` (422 otherwise); custom field values are checked against the task definitions of GET /custom-fields. Records `task:created`.',
        body: TaskCreate,
        response: {
          201: Data(Task),
          409: problemResponse('`external_id_taken`: another task holds this external_id'),
        },
      },
    },
    async (req, reply) => {
      const task = await service.createTask(app.db, req.auth, req.body);
      reply.code(201).header('location', `${app.prefix}/tasks/${task.id}`);
      return { data: task };
    },
  );

  // GET, PATCH and DELETE share one path item, its parameter named `task` as the
  // specification names it on PATCH.
  app.get(
    '/tasks/:task',
    {
      config: { scopes: ['task-management:read'], pageCache: ['tasks', 'files'] },
      schema: {
        tags,
        summary: 'Retrieve a task',
        description: 'Archived tasks stay readable, with `archived_at` set.',
        params: TaskParams,
        response: { 200: Data(Task) },
      },
    },
    async (req) => ({ data: await service.getTask(app.db, req.auth, req.params.task) }),
  );

  app.patch(
    '/tasks/:task',
    {
      config: { scopes: ['task-management:write'] },
      schema: {
        tags,
        summary: 'Update a task',
        description:
          'Changes the given fields. The resulting project, phase, milestone and epic must agree (422). `external_id` has its own endpoint and is ignored here; `custom_fields` keys left out keep their value, `null` clears one. `hourly_rate` (beyond the specification) sets the sale rate an hour of efforts on the task; `null` clears it. Archived tasks cannot be changed (409). Records `task:updated`.',
        params: TaskParams,
        body: TaskUpdate,
        response: { 200: Data(Task), 409: problemResponse('`conflict`: the task is archived') },
      },
    },
    async (req) => ({ data: await service.updateTask(app.db, req.auth, req.params.task, req.body) }),
  );

  app.post(
    '/tasks/:id/restore',
    {
      config: { scopes: ['task-management:write'] },
      schema: {
        tags,
        summary: 'Restore an archived task',
        description:
          'Beyond the specification, as for clients, contacts and companies: the task is live again and back in the lists; restoring a live task changes nothing. A task of an archived project cannot be restored (409: restore the project first). Records `task:updated`.',
        params: IdParams,
        response: { 200: Data(Task), 409: problemResponse('`conflict`: the task’s project is archived') },
      },
    },
    async (req) => ({ data: await service.restoreTask(app.db, req.auth, req.params.id) }),
  );

  app.delete(
    '/tasks/:task',
    {
      config: { scopes: ['task-management:write'] },
      schema: {
        tags,
        summary: 'Archive a task',
        description:
          'The task stays readable by id with `archived_at` and leaves the lists unless `archived=true`. Records `task:deleted`; archiving an archived task changes nothing.',
        params: TaskParams,
        response: { 204: Type.Null({ description: 'Archived' }) },
      },
    },
    async (req, reply) => {
      await service.archiveTask(app.db, req.auth, req.params.task);
      return reply.code(204).send(null);
    },
  );

  app.put(
    '/tasks/:id/external-identifier',
    {
      config: { scopes: ['client:write'] },
      schema: {
        tags,
        summary: 'Set the external identifier of a task',
        description: externalIdDescription({ noun: 'task', event: 'task:updated' }),
        params: IdParams,
        body: ExternalIdBody,
        response: { 200: Data(Task), 409: problemResponse(EXTERNAL_ID_CONFLICT) },
      },
    },
    async (req) => ({ data: await service.setExternalId(app.db, req.auth, req.params.id, req.body) }),
  );

  uploadRoute(
    app,
    '/tasks/:id/upload',
    {
      tags,
      summary: 'Upload a file to a task',
      description:
        '`multipart/form-data` with the file in the part named `file`. 413 beyond the upload limit, 415 for a refused type. The file then shows in the task’s `files`; its bytes are at `download_url`.',
      refused: { 409: problemResponse('`conflict`: the task is archived') },
    },
    service,
  );
};
