import { sqlState } from '../../db/faults.js';
import type { Db } from '../../db/index.js';
import { batchable, checkThenWrite, oneStatementFirst, transactionalKind } from '../../db/insert-batch.js';
import { recordEvents } from '../../shared/events.js';
import type { AuthContext } from '../../shared/tokens.js';
import type { CustomFieldValues } from '../custom-fields/custom-fields.public.js';
import type { FileRow } from '../files/files.public.js';
import { changeEvent, recordChange } from './owned-files.js';
import { dateErrors } from './tasks.domain.js';
import type { TaskRow } from './tasks.repository.js';
import * as repo from './tasks.repository.js';
import type { Task, TaskCreate } from './tasks.schemas.js';

/**
 * The performance machinery of task creates (db/insert-batch.ts), apart from the service: on
 * PostgreSQL creates that arrive together are written as one, and a create that names only
 * its project leaves its checks to the INSERT. The service hands in what a create is.
 */

/** A new task's columns; its rate is set later (PATCH), never on create. */
export type TaskValues = Omit<TaskRow, 'id' | 'archived_at' | 'hourly_rate'>;

/** What the service knows of a create: its answer, its checks and its columns. */
export interface TaskCreateParts {
  toTask(row: TaskRow, files: FileRow[]): Task;
  /** Checks a create's references, dates, custom fields and external id; its columns. */
  checkedValues(db: Db, auth: AuthContext, body: TaskCreate): Promise<TaskValues>;
  taskValues(auth: AuthContext, body: TaskCreate, custom: CustomFieldValues): TaskValues;
}

/**
 * A new task and who creates it (its event names the integration). `unchecked` holds the body
 * of a create whose checks were left to the statement (`projectOnly`): a transaction that
 * writes it runs them first.
 */
interface NewTask {
  auth: AuthContext;
  values: TaskValues;
  unchecked?: TaskCreate;
}

/** A new task's row as stored, built as one literal (an Object.assign makes V8 a dictionary). */
const storedTask = (id: number, v: TaskValues): TaskRow => ({
  id,
  account_id: v.account_id,
  project_id: v.project_id,
  phase_id: v.phase_id,
  milestone_id: v.milestone_id,
  epic_id: v.epic_id,
  name: v.name,
  description: v.description,
  status: v.status,
  priority: v.priority,
  assignee_id: v.assignee_id,
  start_date: v.start_date,
  due_date: v.due_date,
  estimate_minutes: v.estimate_minutes,
  external_id: v.external_id,
  custom_fields: v.custom_fields,
  created_by_id: v.created_by_id,
  completed_at: v.completed_at,
  hourly_rate: null,
  archived_at: null,
  created_at: v.created_at,
  updated_at: v.updated_at,
});

/**
 * Whether a create may leave its checks to the statement (PostgreSQL, outside a transaction):
 * when it names no other record than its project and sets no custom field nor external id, all
 * there is to check is that the project is the account's and not archived and that no custom
 * field is required — `insertTasksAsOne` does, in the INSERT (issue 15: two reads before every
 * create). A create it refuses runs the checks, which name the field, and writes as before.
 */
const projectOnly = (db: Db, body: TaskCreate) =>
  batchable(db) &&
  body.phase_id == null &&
  body.milestone_id == null &&
  body.epic_id == null &&
  body.assignee_id == null &&
  body.custom_fields === undefined &&
  body.external_id == null &&
  dateErrors(body.start_date ?? null, body.due_date ?? null).length === 0;

/** Whether the one-statement create refused a row (`insertTasksAsOne`'s guard, or the project's key). */
const refusedByStatement = (err: unknown) => {
  const code = sqlState(err);
  return code === '23502' || code === '23503';
};

/** `createTask` of the service: the task written with its `task:created` event, batched where it may be. */
export function taskCreates(
  parts: TaskCreateParts,
): (db: Db, auth: AuthContext, body: TaskCreate) => Promise<Task> {
  const { toTask, checkedValues, taskValues } = parts;

  /**
   * Task creates on PostgreSQL (db/insert-batch.ts), those that arrive together and one that
   * arrives alone: one statement with their events when they set the same columns, else one
   * transaction. Each event's payload is the task as answered, built before its id is known
   * (id 0, which the statement replaces).
   */
  const asOne = async (db: Db, tasks: readonly NewTask[]): Promise<Task[] | undefined> => {
    const out = tasks.map((t) => toTask(storedTask(0, t.values), []));
    const ids = await repo.insertTasksAsOne(
      db,
      tasks.map((t) => t.values),
      out.map((task, i) => changeEvent(tasks[i]!.auth, 'task:created', 'task', task)),
    );
    if (!ids) return undefined;
    // The events went out as text with id 0, which the statement replaced; the answers get theirs.
    for (const [i, id] of ids.entries()) out[i]!.id = id;
    return out;
  };

  /** A new task as written: its checks run first where the statement was to run them. */
  const settled = async (trx: Db, t: NewTask): Promise<TaskValues> =>
    t.unchecked ? checkedValues(trx, t.auth, t.unchecked) : t.values;

  const CREATES = oneStatementFirst(
    transactionalKind(
      async (trx, t: NewTask) =>
        recordChange(
          trx,
          t.auth,
          'task:created',
          'task',
          toTask(await repo.insertTask(trx, await settled(trx, t)), []),
        ),
      async (trx, tasks: NewTask[]) => {
        const values: TaskValues[] = [];
        for (const t of tasks) values.push(await settled(trx, t));
        // A new id (never reused: AUTOINCREMENT / serial) owns no files yet.
        const out = (await repo.insertTasks(trx, values)).map((row) => toTask(row, []));
        await recordEvents(
          trx,
          out.map((task, i) => changeEvent(tasks[i]!.auth, 'task:created', 'task', task)),
        );
        return out;
      },
    ),
    asOne,
  );

  return (db, auth, body) => {
    const checked = () =>
      checkThenWrite(
        db,
        CREATES,
        async (trx): Promise<NewTask> => ({
          auth,
          values: await checkedValues(trx, auth, body),
        }),
      );
    const first = projectOnly(db, body)
      ? checkThenWrite(
          db,
          CREATES,
          async (): Promise<NewTask> => ({
            auth,
            values: taskValues(auth, body, {}),
            unchecked: body,
          }),
        )
      : checked();
    return first.catch((err) => {
      // The one statement refused the row (its guard or a key; outside a transaction, so
      // nothing was written and nothing is aborted) — also a checked one, whose project was
      // archived or whose account came to require a custom field since its checks: the checks
      // name what is wrong, or find it fixed meanwhile and write.
      if (batchable(db) && refusedByStatement(err)) return checked();
      throw err;
    });
  };
}
