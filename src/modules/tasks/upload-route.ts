import type { FastifySchemaCompiler } from 'fastify';
import { Data, problemResponse } from '../../shared/schemas.js';
import { validatorCompiler } from '../../shared/validation.js';
import { FileData, UploadBody } from '../files/files.public.js';

/**
 * Schema pieces of an upload route. The multipart body is documented (`UploadBody`) but not
 * validated by the schema compiler: the handler streams it with receiveUpload, which answers
 * 413/415/422 itself. Params are still validated as on every route.
 */
export const uploadSchema = {
  consumes: ['multipart/form-data'],
  body: { content: UploadBody },
  response: {
    201: Data(FileData),
    413: problemResponse('The file exceeds the upload limit'),
    415: problemResponse('Files of this type are not accepted, or the body is not multipart/form-data'),
  },
};

export const uploadValidatorCompiler: FastifySchemaCompiler<unknown> = (route) =>
  route.httpPart === 'body' ? () => true : validatorCompiler(route);
