import type { Transaction } from 'kysely';
import type { Db } from '../../db/index.js';
import type { Database } from '../../db/schema.js';
import { transact } from '../../db/transact.js';
import { changesNothing } from '../../shared/changes.js';
import { AppError, notFound, validationFailed } from '../../shared/errors.js';
import type { Page } from '../../shared/paging.js';
import { nowIso } from '../../shared/time.js';
import type { AuthContext } from '../../shared/tokens.js';
import {
  deleteFilesOf,
  type FileData,
  type FileRow,
  storeFile,
  toFileData,
  type Upload,
} from '../files/files.public.js';
import { recordChange, withFilesOf } from './owned-files.js';
import type { CommentRow } from './tasks.repository.js';
import * as repo from './tasks.repository.js';
import type { Comment, CommentCreate, CommentListQuery, CommentUpdate } from './tasks.schemas.js';
import { getTaskRow } from './tasks.service.js';

export function toComment(r: CommentRow, files: FileRow[]): Comment {
  return {
    id: r.id,
    task_id: r.task_id,
    author_id: r.author_id,
    content: r.content,
    files: files.map(toFileData),
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

async function withFiles(db: Db, row: CommentRow): Promise<Comment> {
  return (await withFilesOf(db, row.account_id, 'comment', [row], toComment))[0]!;
}

async function getCommentRow(db: Db, auth: AuthContext, id: number): Promise<CommentRow> {
  const row = await repo.findComment(db, auth.accountId, id);
  if (!row) throw notFound('Comment');
  return row;
}

/** Only the author may change, delete or upload to a comment. */
async function getOwnComment(db: Db, auth: AuthContext, id: number): Promise<CommentRow> {
  const row = await getCommentRow(db, auth, id);
  if (row.author_id !== auth.userId) {
    throw new AppError('not_author', `Only the author of comment ${id} (user ${row.author_id}) may do this`);
  }
  return row;
}

export const getComment = async (db: Db, auth: AuthContext, id: number) =>
  withFiles(db, await getCommentRow(db, auth, id));

export async function listComments(
  db: Db,
  auth: AuthContext,
  taskId: number,
  q: CommentListQuery,
): Promise<Page<Comment>> {
  await getTaskRow(db, auth, taskId);
  const page = await repo.listComments(db, auth.accountId, taskId, q);
  return { ...page, rows: await withFilesOf(db, auth.accountId, 'comment', page.rows, toComment) };
}

const emit = (
  trx: Transaction<Database>,
  auth: AuthContext,
  kind: 'comment:created' | 'comment:updated' | 'comment:deleted',
  comment: Comment,
) => recordChange(trx, auth, kind, 'comment', comment);

export function createComment(db: Db, auth: AuthContext, body: CommentCreate): Promise<Comment> {
  return transact(db, async (trx) => {
    const task = await repo.findTask(trx, auth.accountId, body.task_id);
    if (!task) {
      throw validationFailed([{ field: 'task_id', message: 'no such task' }]);
    }
    if (task.archived_at)
      throw new AppError('conflict', `Task ${task.id} is archived: it takes no new comments`);
    const now = nowIso();
    const row = await repo.insertComment(trx, {
      account_id: auth.accountId,
      task_id: task.id,
      author_id: auth.userId,
      content: body.content,
      created_at: now,
      updated_at: now,
    });
    return emit(trx, auth, 'comment:created', toComment(row, []));
  });
}

export function updateComment(db: Db, auth: AuthContext, id: number, body: CommentUpdate): Promise<Comment> {
  return transact(db, async (trx) => {
    const current = await getOwnComment(trx, auth, id);
    // A PATCH that changes nothing keeps updated_at and records no event.
    if (changesNothing(current, { content: body.content })) return withFiles(trx, current);
    const row = await repo.updateComment(trx, auth.accountId, id, {
      content: body.content,
      updated_at: nowIso(),
    });
    return emit(trx, auth, 'comment:updated', await withFiles(trx, row));
  });
}

/** Deletes the comment and its files; the event carries the comment as it was. */
export function deleteComment(db: Db, auth: AuthContext, id: number): Promise<void> {
  return transact(db, async (trx) => {
    const comment = await withFiles(trx, await getOwnComment(trx, auth, id));
    // The comment's files go with it (their bytes follow by the file_blobs cascade).
    await deleteFilesOf(trx, auth.accountId, 'comment', id);
    await repo.deleteComment(trx, auth.accountId, id);
    await emit(trx, auth, 'comment:deleted', comment);
  });
}

/** Checked before the upload is read, so a refused upload is not streamed in first. */
export async function assertCanUpload(db: Db, auth: AuthContext, id: number): Promise<void> {
  await getOwnComment(db, auth, id);
}

export function attachFile(db: Db, auth: AuthContext, id: number, upload: Upload): Promise<FileData> {
  return transact(db, async (trx) => {
    await getOwnComment(trx, auth, id);
    return toFileData(await storeFile(trx, auth, upload, { type: 'comment', id }));
  });
}
