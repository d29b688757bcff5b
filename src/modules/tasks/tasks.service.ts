import type { Transaction } from 'kysely';
import type { Db } from '../../db/index.js';
import type { Database } from '../../db/schema.js';
import { transact } from '../../db/transact.js';
import { changesNothing } from '../../shared/changes.js';
import { AppError, type FieldError, notFound, validationFailed } from '../../shared/errors.js';
import {
  applyExternalId,
  assertExternalIdFree,
  type ExternalIdBody,
  type ExternalIdStore,
} from '../../shared/external-id.js';
import { fromCents, toCents } from '../../shared/money.js';
import type { Page } from '../../shared/paging.js';
import { nowIso } from '../../shared/time.js';
import type { AuthContext } from '../../shared/tokens.js';
import {
  type CustomFieldValues,
  parseCustomFieldValues,
  validateCustomFields,
} from '../custom-fields/custom-fields.public.js';
import { type FileData, type FileRow, storeFile, toFileData, type Upload } from '../files/files.public.js';
import { userExists } from '../users/users.public.js';
import { recordChange, withFilesOf } from './owned-files.js';
import { findProject, linkChecks } from './project-links.read-model.js';
import { type TaskValues, taskCreates } from './tasks.create-batch.js';
import { completedAt, dateErrors, linkErrors } from './tasks.domain.js';
import type { TaskRow } from './tasks.repository.js';
import * as repo from './tasks.repository.js';
import type {
  Task,
  TaskCreate,
  TaskListQuery,
  TaskPriority,
  TaskStatus,
  TaskUpdate,
} from './tasks.schemas.js';

export function toTask(r: TaskRow, files: FileRow[]): Task {
  return {
    id: r.id,
    project_id: r.project_id,
    name: r.name,
    description: r.description,
    status: r.status as TaskStatus,
    priority: r.priority as TaskPriority,
    phase_id: r.phase_id,
    milestone_id: r.milestone_id,
    epic_id: r.epic_id,
    assignee_id: r.assignee_id,
    start_date: r.start_date,
    due_date: r.due_date,
    estimate_minutes: r.estimate_minutes,
    hourly_rate: r.hourly_rate === null ? null : fromCents(r.hourly_rate),
    external_id: r.external_id,
    custom_fields: parseCustomFieldValues(r.custom_fields),
    files: files.map(toFileData),
    created_by_id: r.created_by_id,
    completed_at: r.completed_at,
    archived_at: r.archived_at,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

async function withFiles(db: Db, row: TaskRow): Promise<Task> {
  return (await withFilesOf(db, row.account_id, 'task', [row], toTask))[0]!;
}

export async function getTaskRow(db: Db, auth: AuthContext, id: number): Promise<TaskRow> {
  const row = await repo.findTask(db, auth.accountId, id);
  if (!row) throw notFound('Task');
  return row;
}

/** The project of one of the account's tasks (for records that name a task and a project). */
export const projectIdOfTask = async (db: Db, accountId: number, taskId: number): Promise<number> => {
  const row = await repo.findTask(db, accountId, taskId);
  if (!row) throw notFound('Task');
  return row.project_id;
};

export const getTask = async (db: Db, auth: AuthContext, id: number) =>
  withFiles(db, await getTaskRow(db, auth, id));

export async function listTasks(db: Db, auth: AuthContext, q: TaskListQuery): Promise<Page<Task>> {
  const page = await repo.listTasks(db, auth.accountId, q);
  return { ...page, rows: await withFilesOf(db, auth.accountId, 'task', page.rows, toTask) };
}

function assertWritable(row: TaskRow): void {
  if (row.archived_at) throw new AppError('conflict', `Task ${row.id} is archived and cannot be changed`);
}

interface TaskState {
  project_id: number;
  phase_id: number | null;
  milestone_id: number | null;
  epic_id: number | null;
  assignee_id: number | null;
  start_date: string | null;
  due_date: string | null;
}

/** Everything about a task's references that can be wrong, as field errors. */
async function stateErrors(
  db: Db,
  auth: AuthContext,
  s: TaskState,
  check: { project: boolean; assignee: boolean },
): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  if (check.project) {
    const project = await findProject(db, auth.accountId, s.project_id);
    if (!project) errors.push({ field: 'project_id', message: 'no such project' });
    else if (project.archived_at) errors.push({ field: 'project_id', message: 'project is archived' });
  }
  const links = await linkChecks(db, auth.accountId, s);
  if (!errors.some((e) => e.field === 'project_id')) errors.push(...linkErrors(s.project_id, links));
  if (check.assignee && s.assignee_id !== null && !(await userExists(db, auth.accountId, s.assignee_id)))
    errors.push({ field: 'assignee_id', message: 'no such user in this account' });
  errors.push(...dateErrors(s.start_date, s.due_date));
  return errors;
}

/** Runs the custom field check too, so one answer names every bad field. */
async function validate(
  db: Db,
  auth: AuthContext,
  errors: FieldError[],
  values: Record<string, unknown> | undefined,
  current: CustomFieldValues,
  creating: boolean,
): Promise<CustomFieldValues> {
  let custom = current;
  try {
    // On create, required fields must be given; an update that leaves custom_fields out keeps them.
    if (values !== undefined || creating)
      custom = await validateCustomFields(db, auth.accountId, 'task', values, { current });
  } catch (err) {
    if (!(err instanceof AppError) || !err.errors) throw err;
    errors.push(...err.errors);
  }
  if (errors.length > 0) {
    throw validationFailed(errors);
  }
  return custom;
}

const emit = async (
  trx: Transaction<Database>,
  auth: AuthContext,
  kind: 'task:created' | 'task:updated' | 'task:deleted',
  row: TaskRow,
): Promise<Task> => recordChange(trx, auth, kind, 'task', await withFiles(trx, row));

/** The task written with its `task:created` event; batched on PostgreSQL (tasks.create-batch.ts). */
export const createTask = taskCreates({ toTask, checkedValues, taskValues });

/** Checks a create's references, dates, custom fields and external id; its columns. */
async function checkedValues(db: Db, auth: AuthContext, body: TaskCreate): Promise<TaskValues> {
  const { custom_fields, external_id } = body;
  const state: TaskState = {
    project_id: body.project_id,
    phase_id: body.phase_id ?? null,
    milestone_id: body.milestone_id ?? null,
    epic_id: body.epic_id ?? null,
    assignee_id: body.assignee_id ?? null,
    start_date: body.start_date ?? null,
    due_date: body.due_date ?? null,
  };
  const errors = await stateErrors(db, auth, state, { project: true, assignee: true });
  const custom = await validate(db, auth, errors, custom_fields, {}, true);
  await assertExternalIdFree(externalIdHolders(db, auth), external_id);
  return taskValues(auth, body, custom);
}

/**
 * A new task's columns. Every one written out: spreads of the body cost more than the rest of
 * building the row, and a row of one shape for every request keeps a batch one statement
 * (`jsonRecordset` wants the same columns in the same order).
 */
function taskValues(auth: AuthContext, body: TaskCreate, custom: CustomFieldValues): TaskValues {
  const now = nowIso();
  const status = body.status ?? 'open';
  return {
    account_id: auth.accountId,
    project_id: body.project_id,
    phase_id: body.phase_id ?? null,
    milestone_id: body.milestone_id ?? null,
    epic_id: body.epic_id ?? null,
    name: body.name,
    description: body.description ?? null,
    status,
    priority: body.priority ?? 'normal',
    assignee_id: body.assignee_id ?? null,
    start_date: body.start_date ?? null,
    due_date: body.due_date ?? null,
    estimate_minutes: body.estimate_minutes ?? null,
    external_id: body.external_id ?? null,
    custom_fields: JSON.stringify(custom),
    created_by_id: auth.userId,
    completed_at: completedAt(undefined, status, now),
    created_at: now,
    updated_at: now,
  };
}

export function updateTask(db: Db, auth: AuthContext, id: number, body: TaskUpdate): Promise<Task> {
  return transact(db, async (trx) => {
    const row = await getTaskRow(trx, auth, id);
    assertWritable(row);
    const { custom_fields, hourly_rate, ...fields } = body;
    const state: TaskState = {
      project_id: body.project_id ?? row.project_id,
      phase_id: body.phase_id !== undefined ? body.phase_id : row.phase_id,
      milestone_id: body.milestone_id !== undefined ? body.milestone_id : row.milestone_id,
      epic_id: body.epic_id !== undefined ? body.epic_id : row.epic_id,
      assignee_id: body.assignee_id !== undefined ? body.assignee_id : row.assignee_id,
      start_date: body.start_date !== undefined ? body.start_date : row.start_date,
      due_date: body.due_date !== undefined ? body.due_date : row.due_date,
    };
    const errors = await stateErrors(trx, auth, state, {
      project: state.project_id !== row.project_id,
      assignee: body.assignee_id !== undefined,
    });
    const current = parseCustomFieldValues(row.custom_fields);
    const custom = await validate(trx, auth, errors, custom_fields, current, false);
    const now = nowIso();
    const values = {
      ...fields,
      ...(hourly_rate !== undefined
        ? { hourly_rate: hourly_rate === null ? null : toCents(hourly_rate)! }
        : {}),
      custom_fields: JSON.stringify(custom),
      completed_at: completedAt(row, body.status ?? row.status, now),
    };
    // A PATCH that changes nothing keeps updated_at and records no event.
    if (changesNothing(row, values)) return withFiles(trx, row);
    const updated = await repo.updateTask(trx, auth.accountId, id, { ...values, updated_at: now });
    return emit(trx, auth, 'task:updated', updated);
  });
}

/** DELETE archives: the task stays readable with `archived_at`. Archiving twice changes nothing. */
export function archiveTask(db: Db, auth: AuthContext, id: number): Promise<void> {
  return transact(db, async (trx) => {
    const row = await getTaskRow(trx, auth, id);
    if (row.archived_at) return;
    const now = nowIso();
    const updated = await repo.updateTask(trx, auth.accountId, id, { archived_at: now, updated_at: now });
    await emit(trx, auth, 'task:deleted', updated);
  });
}

/**
 * POST …/restore: an archived task is live again (records `task:updated`, as restoring a
 * client does); a live task is answered as it is. A task of an archived project stays
 * archived: restore the project first (409).
 */
export function restoreTask(db: Db, auth: AuthContext, id: number): Promise<Task> {
  return transact(db, async (trx) => {
    const row = await getTaskRow(trx, auth, id);
    if (!row.archived_at) return withFiles(trx, row);
    const project = await findProject(trx, auth.accountId, row.project_id);
    if (project?.archived_at)
      throw new AppError(
        'conflict',
        `Task ${id} belongs to archived project ${row.project_id}: restore the project first`,
      );
    const updated = await repo.updateTask(trx, auth.accountId, id, {
      archived_at: null,
      updated_at: nowIso(),
    });
    return emit(trx, auth, 'task:updated', updated);
  });
}

/** Who holds an external id: all that a create checks. */
const externalIdHolders = (db: Db, auth: AuthContext) => ({
  noun: 'Task',
  findHolder: (value: string) => repo.findTaskByExternalId(db, auth.accountId, value),
});

/** Tasks under the one external-identifier rule (shared/external-id.ts); each write records `task:updated`. */
const externalIds = (trx: Transaction<Database>, auth: AuthContext): ExternalIdStore<Task> => ({
  ...externalIdHolders(trx, auth),
  write: async (id, value) => {
    const row = await repo.updateTask(trx, auth.accountId, id, { external_id: value, updated_at: nowIso() });
    return emit(trx, auth, 'task:updated', row);
  },
});

/**
 * PUT /tasks/{id}/external-identifier: the rule of contacts and companies. Replacing or
 * clearing a value the task has, or taking one another task holds, needs `force`; the same
 * value again changes nothing.
 */
export function setExternalId(db: Db, auth: AuthContext, id: number, body: ExternalIdBody): Promise<Task> {
  return transact(db, async (trx) => {
    const row = await getTaskRow(trx, auth, id);
    return (await applyExternalId(externalIds(trx, auth), row, body)) ?? withFiles(trx, row);
  });
}

/** Checked before the upload is read, so a refused upload is not streamed in first. */
export async function assertCanUpload(db: Db, auth: AuthContext, id: number): Promise<void> {
  assertWritable(await getTaskRow(db, auth, id));
}

export function attachFile(db: Db, auth: AuthContext, id: number, upload: Upload): Promise<FileData> {
  return transact(db, async (trx) => {
    assertWritable(await getTaskRow(trx, auth, id));
    return toFileData(await storeFile(trx, auth, upload, { type: 'task', id }));
  });
}
