import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import type { Db } from '../../db/index.js';
import { AppError, invalidField, notFound } from '../../shared/errors.js';
import type { AuthContext } from '../../shared/tokens.js';
import type { FileRow } from './files.repository.js';
import * as repo from './files.repository.js';
import type { FileData as FileDataSchema } from './files.schemas.js';

/**
 * Types accepted by default: documents, images, text and archives an agency exchanges.
 * Anything a browser would run (HTML, JavaScript, executables) is refused with 415.
 */
const ALLOWED = [
  /^application\/pdf$/,
  /^image\/(png|jpeg|gif|webp|tiff|heic|bmp)$/,
  /^text\/(plain|csv|markdown|xml)$/,
  /^application\/(xml|json|zip|x-zip-compressed|gzip|octet-stream|rtf)$/,
  /^application\/(msword|vnd\.ms-excel|vnd\.ms-powerpoint)$/,
  /^application\/vnd\.openxmlformats-officedocument\.[a-z.]+$/,
  /^application\/vnd\.oasis\.opendocument\.[a-z.]+$/,
  /^message\/rfc822$/,
];

export const isAllowedType = (type: string) => ALLOWED.some((re) => re.test(type));

export interface Upload {
  filename: string;
  contentType: string;
  data: Buffer;
  sha256: string;
  md5: string;
  /** The other (text) parts of the form, by name. */
  fields: Record<string, string>;
}

function cleanName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const cleaned = [...base]
    .filter((ch) => ch.charCodeAt(0) >= 0x20 && ch.charCodeAt(0) !== 0x7f && ch !== '"')
    .join('')
    .trim()
    .slice(0, 255);
  return cleaned || 'file';
}

/** The text parts the route's documented form declares (every part but `file`). */
function declaredFields(req: FastifyRequest): Set<string> {
  const body = req.routeOptions.schema?.body as
    | { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> }
    | undefined;
  const props = body?.content?.['multipart/form-data']?.schema?.properties ?? {};
  return new Set(Object.keys(props).filter((name) => name !== 'file'));
}

/**
 * Reads a multipart/form-data request: one file in the part named `file` (hashed while it
 * streams in, capped at the upload limit: 413 beyond it) and the text parts the route's form
 * declares (any other part is refused with 422, like an unknown JSON field). A body that is
 * not well-formed multipart (no boundary, no closing boundary) is a 400 `invalid_multipart`.
 */
export async function receiveUpload(
  req: FastifyRequest,
  options: { required?: boolean; accept?: (contentType: string) => boolean } = {},
): Promise<Upload | undefined> {
  try {
    return await readParts(req, options);
  } catch (err) {
    const status = (err as { statusCode?: number }).statusCode;
    if (err instanceof AppError || (status !== undefined && status < 500)) throw err;
    // The multipart parser's own errors ("Unexpected end of form", "Boundary not found" …).
    throw new AppError(
      'invalid_multipart',
      `The body is not valid multipart/form-data: ${(err as Error).message}`,
      {
        cause: err,
      },
    );
  }
}

async function readParts(
  req: FastifyRequest,
  options: { required?: boolean; accept?: (contentType: string) => boolean },
): Promise<Upload | undefined> {
  const accept = options.accept ?? isAllowedType;
  const allowed = declaredFields(req);
  const fields: Record<string, string> = {};
  let upload: Upload | undefined;
  for await (const part of req.parts()) {
    if (part.type === 'field') {
      if (!allowed.has(part.fieldname))
        throw invalidField(part.fieldname, 'must NOT have additional properties');
      // The parser cuts a part beyond its fieldSize limit short instead of failing.
      if (part.valueTruncated)
        throw new AppError('payload_too_large', `The part "${part.fieldname}" is larger than 1 MiB`);
      fields[part.fieldname] = String(part.value);
      continue;
    }
    if (part.fieldname !== 'file') throw invalidField(part.fieldname, 'files go in the part named "file"');
    if (upload) throw invalidField('file', 'only one file per request');
    const contentType = (part.mimetype || 'application/octet-stream').toLowerCase().split(';')[0]!.trim();
    if (!accept(contentType)) {
      part.file.resume();
      throw new AppError('unsupported_media_type', `Files of type ${contentType} are not accepted`);
    }
    const sha = createHash('sha256');
    const md5 = createHash('md5');
    const chunks: Buffer[] = [];
    for await (const chunk of part.file as AsyncIterable<Buffer>) {
      sha.update(chunk);
      md5.update(chunk);
      chunks.push(chunk);
    }
    if (part.file.truncated)
      throw new AppError(
        'payload_too_large',
        `The file exceeds the upload limit of ${req.server.config.uploadLimit} bytes`,
      );
    const data = Buffer.concat(chunks);
    if (data.length === 0) throw invalidField('file', 'is empty');
    upload = {
      filename: cleanName(part.filename),
      contentType,
      data,
      sha256: sha.digest('hex'),
      md5: md5.digest('hex'),
      fields,
    };
  }
  if (!upload && options.required !== false)
    throw invalidField('file', 'a file is required in the part named "file"');
  if (upload) upload.fields = fields;
  return upload;
}

/** A file as the API shows it (the data of the `File` schema). */
export type FileData = Static<typeof FileDataSchema>;

export function toFileData(r: FileRow): FileData {
  return {
    id: r.id,
    name: r.name,
    content_type: r.content_type,
    size: Number(r.size),
    sha256: r.sha256,
    md5: r.md5,
    owner_type: r.owner_type,
    owner_id: r.owner_id,
    download_url: `/api/v1/files/${r.id}/download`,
    created_at: r.created_at,
  };
}

/** Stores an upload (bytes included); call it inside the transaction of the owning change. */
export function storeFile(
  db: Db,
  auth: Pick<AuthContext, 'accountId' | 'userId'>,
  upload: Pick<Upload, 'filename' | 'contentType' | 'data' | 'sha256' | 'md5'>,
  owner?: { type: string; id: number },
): Promise<FileRow> {
  return repo.insertFile(
    db,
    {
      account_id: auth.accountId,
      name: upload.filename,
      content_type: upload.contentType,
      size: upload.data.length,
      sha256: upload.sha256,
      md5: upload.md5,
      owner_type: owner?.type ?? null,
      owner_id: owner?.id ?? null,
      uploaded_by_user_id: auth.userId,
    },
    upload.data,
  );
}

/** Hashes bytes the way uploads are hashed, for files the service makes itself. */
export function bytesToUpload(filename: string, contentType: string, data: Buffer) {
  return {
    filename,
    contentType,
    data,
    sha256: createHash('sha256').update(data).digest('hex'),
    md5: createHash('md5').update(data).digest('hex'),
  };
}

export async function getFile(db: Db, auth: AuthContext, id: number): Promise<FileRow> {
  const row = await repo.findFile(db, auth.accountId, id);
  if (!row) throw notFound('File');
  return row;
}

export async function getFileBytes(
  db: Db,
  auth: AuthContext,
  id: number,
): Promise<{ row: FileRow; data: Buffer }> {
  const row = await getFile(db, auth, id);
  const data = await repo.readBlob(db, id);
  if (!data) throw notFound('File content');
  return { row, data };
}
