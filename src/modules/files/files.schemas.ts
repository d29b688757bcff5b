import { Type } from 'typebox';
import { Id, Nullable, Timestamp } from '../../shared/schemas.js';

export const FileData = Type.Object(
  {
    id: Id,
    name: Type.String(),
    content_type: Type.String(),
    size: Type.Integer({ description: 'Bytes' }),
    sha256: Type.String(),
    md5: Type.String(),
    owner_type: Nullable(
      Type.String({ description: 'What the file belongs to: task, comment, outgoing_invoice …' }),
    ),
    owner_id: Nullable(Id),
    download_url: Type.String(),
    created_at: Timestamp,
  },
  { $id: 'File' },
);

/** Response of a download route: the bytes, in the media type(s) it is served with. */
export const Binary = (
  description: string,
  contentType: string | readonly string[] = 'application/octet-stream',
) => ({
  description,
  content: Object.fromEntries(
    [contentType].flat().map((type) => [type, { schema: { type: 'string', format: 'binary' } }]),
  ),
});

/**
 * A stored file is served with the type it was uploaded with (files.service.ts: documents,
 * images, text, archives, mail); `application/octet-stream` when it had no more precise one.
 */
export const FILE_MEDIA_TYPES = [
  'application/pdf',
  'application/xml',
  'application/zip',
  'text/csv',
  'text/plain',
  'image/png',
  'image/jpeg',
  'image/*',
  'text/*',
  'application/*',
  'message/rfc822',
  'application/octet-stream',
] as const;

/** The multipart body of an upload, for the document only (parsing is done by receiveUpload). */
export const UploadBody = {
  'multipart/form-data': {
    schema: {
      type: 'object',
      required: ['file'],
      properties: {
        file: { type: 'string', format: 'binary', description: 'The file, in the part named `file`' },
      },
    },
  },
};
