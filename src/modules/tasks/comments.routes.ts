import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { listResponse } from '../../shared/paging.js';
import { Data, IdParams, List, problemResponse } from '../../shared/schemas.js';
import * as service from './comments.service.js';
import { Comment, CommentCreate, CommentListQuery, CommentUpdate } from './tasks.schemas.js';
import { uploadRoute } from './upload-route.js';

const tags = ['Task comments'];
const notAuthor = problemResponse(
  'The token lacks a required scope (`insufficient_scope`), or its user is not the comment’s author (`not_author`)',
);
const authorOnly =
  'Only the comment’s author (the user of the token) may do this: 403 `not_author` otherwise.';

export const commentsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/tasks/:id/comments',
    {
      config: { scopes: ['task-management:read'] },
      schema: {
        tags: ['Tasks'],
        summary: 'List the comments of a task',
        params: IdParams,
        querystring: CommentListQuery,
        response: { 200: List(Comment) },
      },
    },
    async (req, reply) =>
      listResponse(
        req,
        reply,
        await service.listComments(app.db, req.auth, req.params.id, req.query),
        (c) => c,
      ),
  );

  app.post(
    '/tasks/comments',
    {
      config: { scopes: ['task-management:write'] },
      schema: {
        tags,
        summary: 'Create a comment on a task',
        description:
          'The author is the user of the token. Archived tasks take no new comments (409). Records `comment:created`.',
        body: CommentCreate,
        response: { 201: Data(Comment), 409: problemResponse('`conflict`: the task is archived') },
      },
    },
    async (req, reply) => {
      const comment = await service.createComment(app.db, req.auth, req.body);
      reply.code(201).header('location', `${app.prefix}/tasks/comments/${comment.id}`);
      return { data: comment };
    },
  );

  app.get(
    '/tasks/comments/:id',
    {
      config: { scopes: ['task-management:read'] },
      schema: {
        tags,
        summary: 'Retrieve a comment',
        params: IdParams,
        response: { 200: Data(Comment) },
      },
    },
    async (req) => ({ data: await service.getComment(app.db, req.auth, req.params.id) }),
  );

  app.patch(
    '/tasks/comments/:id',
    {
      config: { scopes: ['task-management:write'] },
      schema: {
        tags,
        summary: 'Update a comment’s content',
        description: `${authorOnly} Records \`comment:updated\`.`,
        params: IdParams,
        body: CommentUpdate,
        response: { 200: Data(Comment), 403: notAuthor },
      },
    },
    async (req) => ({ data: await service.updateComment(app.db, req.auth, req.params.id, req.body) }),
  );

  app.delete(
    '/tasks/comments/:id',
    {
      config: { scopes: ['task-management:write'] },
      schema: {
        tags,
        summary: 'Delete a comment',
        description: `${authorOnly} The comment’s files are deleted with it. Records \`comment:deleted\` with the comment as it was.`,
        params: IdParams,
        response: { 204: Type.Null({ description: 'Deleted' }), 403: notAuthor },
      },
    },
    async (req, reply) => {
      await service.deleteComment(app.db, req.auth, req.params.id);
      return reply.code(204).send(null);
    },
  );

  uploadRoute(
    app,
    '/tasks/comments/:id/upload',
    {
      tags,
      summary: 'Upload a file to a comment',
      description: `${authorOnly} \`multipart/form-data\` with the file in the part named \`file\`; 413 beyond the upload limit, 415 for a refused type.`,
      refused: { 403: notAuthor },
    },
    service,
  );
};
