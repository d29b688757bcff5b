/**
 * The front door of files for other modules: the file schemas, the upload reader and the
 * service functions that store and read files. Other modules import files only from here
 * (or files.service.ts), never its repository or tables.
 */
import type { Db } from '../../db/index.js';
import type { FileRow } from './files.repository.js';
import * as repo from './files.repository.js';
import { FileData as FileDataSchema } from './files.schemas.js';
import type { FileData as FileDataOut } from './files.service.js';

export type { FileRow } from './files.repository.js';
export { Binary, UploadBody } from './files.schemas.js';
/** A file as the API shows it: the schema, and the type of its data. */
export const FileData = FileDataSchema;
export type FileData = FileDataOut;
export {
  bytesToUpload,
  getFile,
  getFileBytes,
  receiveUpload,
  storeFile,
  toFileData,
  type Upload,
} from './files.service.js';

/** The files an owner kind holds, for several owners at once (ordered by id). */
export const filesOf = (
  db: Db,
  accountId: number,
  ownerType: string,
  ownerIds: number[],
): Promise<FileRow[]> => repo.filesOf(db, accountId, ownerType, ownerIds);

/** The bytes of a file, without the account check (for workers that hold the file id already). */
export const readBlob = (db: Db, fileId: number): Promise<Buffer | undefined> => repo.readBlob(db, fileId);

/** Deletes the files of one owner (their bytes follow by the file_blobs cascade). */
export const deleteFilesOf = (db: Db, accountId: number, ownerType: string, ownerId: number): Promise<void> =>
  repo.deleteFilesOf(db, accountId, ownerType, ownerId);
