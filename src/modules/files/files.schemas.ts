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

/** Response of a download route: the bytes. */
export const Binary = (description: string, contentType = 'application/octet-stream') => ({
  description,
  content: { [contentType]: { schema: { type: 'string', format: 'binary' } } },
});

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
