import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sendBytes } from '../../shared/http.js';
import { Data, IdParams, problemResponse } from '../../shared/schemas.js';
import { Binary, FILE_MEDIA_TYPES, FileData } from './files.schemas.js';
import * as service from './files.service.js';

const tags = ['Files'];

export const filesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/files/:id',
    {
      config: { scopes: [] },
      schema: { tags, summary: 'File data (metadata)', params: IdParams, response: { 200: Data(FileData) } },
    },
    async (req) => ({ data: service.toFileData(await service.getFile(app.db, req.auth, req.params.id)) }),
  );

  app.get(
    '/files/:id/download',
    {
      config: { scopes: [] },
      schema: {
        tags,
        summary: 'Download a file',
        description:
          'The bytes with Content-Type, Content-Disposition and a strong ETag; supports If-None-Match and a single byte Range.',
        params: IdParams,
        response: {
          200: Binary('The file, with the media type it was uploaded with', FILE_MEDIA_TYPES),
          206: Binary('The requested byte range', FILE_MEDIA_TYPES),
          416: problemResponse('Range not satisfiable'),
        },
      },
    },
    async (req, reply) => {
      const { row, data } = await service.getFileBytes(app.db, req.auth, req.params.id);
      return sendBytes(req, reply, {
        data,
        contentType: row.content_type,
        filename: row.name,
        sha256: row.sha256,
      });
    },
  );
};
