import type { Generated } from 'kysely';

export interface FileTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  content_type: string;
  size: number;
  sha256: string;
  md5: string;
  /** What the file is attached to, e.g. 'task', 'comment', 'outgoing_invoice'. */
  owner_type: string | null;
  owner_id: number | null;
  uploaded_by_user_id: number | null;
  created_at: Generated<string>;
}

export interface FileBlobTable {
  file_id: number;
  data: Buffer;
}

declare module '../../db/schema.js' {
  interface Database {
    files: FileTable;
    file_blobs: FileBlobTable;
  }
}
