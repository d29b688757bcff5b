import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';
import type { Db } from '../../db/index.js';
import { Data, IdParams, problemResponse } from '../../shared/schemas.js';
import type { AuthContext } from '../../shared/tokens.js';
import { validatorCompiler } from '../../shared/validation.js';
import { FileData, receiveUpload, type Upload, UploadBody } from '../files/files.public.js';

/**
 * Schema pieces of an upload route. The multipart body is documented (`UploadBody`) but not
 * validated by the schema compiler: the handler streams it with receiveUpload, which answers
 * 413/415/422 itself. Params are still validated as on every route.
 */
const uploadSchema = {
  consumes: ['multipart/form-data'],
  body: { content: UploadBody },
  response: {
    201: Data(FileData),
    413: problemResponse('The file exceeds the upload limit'),
    415: problemResponse('Files of this type are not accepted, or the body is not multipart/form-data'),
  },
};

const uploadValidatorCompiler: FastifySchemaCompiler<unknown> = (route) =>
  route.httpPart === 'body' ? () => true : validatorCompiler(route);

/** What a record that takes uploads (a task, a comment) does with one. */
export interface UploadOwner {
  /** Checked before the upload is read, so a refused upload is not streamed in first. */
  assertCanUpload: (db: Db, auth: AuthContext, id: number) => Promise<void>;
  attachFile: (db: Db, auth: AuthContext, id: number, upload: Upload) => Promise<FileData>;
}

/**
 * POST `url` (`/…/:id/upload`): one file in the part named `file`, stored on record `id`;
 * 201 with the file and its `location`. `refused` documents the owner's own refusals.
 */
export function uploadRoute(
  app: FastifyInstance,
  url: string,
  texts: { tags: string[]; summary: string; description: string; refused: Record<number, unknown> },
  owner: UploadOwner,
): void {
  app.post<{ Params: { id: number } }>(
    url,
    {
      config: { scopes: ['task-management:write'] },
      validatorCompiler: uploadValidatorCompiler,
      schema: {
        tags: texts.tags,
        summary: texts.summary,
        description: texts.description,
        params: IdParams,
        ...uploadSchema,
        response: { ...uploadSchema.response, ...texts.refused },
      },
    },
    async (req, reply) => {
      await owner.assertCanUpload(app.db, req.auth, req.params.id);
      const upload = (await receiveUpload(req))!;
      const file = await owner.attachFile(app.db, req.auth, req.params.id, upload);
      reply.code(201).header('location', `${app.prefix}/files/${file.id}`);
      return { data: file };
    },
  );
}
