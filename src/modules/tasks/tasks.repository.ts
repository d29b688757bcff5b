import { type Insertable, type Selectable, sql, type Updateable } from 'kysely';
import type { Db } from '../../db/index.js';
import { type EventInput, insertWithEventsAsOne, type RowGuard } from '../../shared/events.js';
import { keptTotal } from '../../shared/list-counts.js';
import { findOwned, insertReturning, insertRowsReturning } from '../../shared/owned.js';
import { idPages, paginate, type Sortable, unfiltered } from '../../shared/paging.js';
import { containsIndexed } from '../../shared/search.js';
import { toIso } from '../../shared/time.js';
import { TASK_JSON_PAGES } from './task-pages.read-model.js';
import type { TaskListQuery } from './tasks.schemas.js';
import type { TaskCommentTable, TaskTable } from './tasks.tables.js';

export type TaskRow = Selectable<TaskTable>;
export type CommentRow = Selectable<TaskCommentTable>;

export const findTask = (db: Db, accountId: number, id: number) => findOwned(db, 'tasks', accountId, id);

export const findTaskByExternalId = (db: Db, accountId: number, externalId: string) =>
  db
    .selectFrom('tasks')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('external_id', '=', externalId)
    .executeTakeFirst();

export const TASK_SORTABLE: Sortable = {
  name: {},
  status: {},
  priority: {},
  due_date: { nullable: true },
  start_date: { nullable: true },
  project_id: {},
};

// The unfiltered list's pages, prepared: active rows and all.
const PAGES = [false, true].map((archived) =>
  idPages((db, accountId) => {
    const qb = db.selectFrom('tasks').where('account_id', '=', accountId);
    return (archived ? qb : qb.where('archived_at', 'is', null)).selectAll();
  }),
);

/** The filtered list's query (built only when `paginate` needs it, see `listTasks`). */
function tasksQuery(db: Db, accountId: number, q: TaskListQuery) {
  let qb = db.selectFrom('tasks').selectAll().where('account_id', '=', accountId);
  if (!q.archived) qb = qb.where('archived_at', 'is', null);
  if (q.project_id !== undefined) qb = qb.where('project_id', '=', q.project_id);
  if (q.assignee_id !== undefined) qb = qb.where('assignee_id', '=', q.assignee_id);
  if (q.unassigned === true) qb = qb.where('assignee_id', 'is', null);
  if (q.status !== undefined) qb = qb.where('status', '=', q.status);
  if (q.priority !== undefined) qb = qb.where('priority', '=', q.priority);
  if (q.phase_id !== undefined) qb = qb.where('phase_id', '=', q.phase_id);
  if (q.milestone_id !== undefined) qb = qb.where('milestone_id', '=', q.milestone_id);
  if (q.epic_id !== undefined) qb = qb.where('epic_id', '=', q.epic_id);
  if (q.due_from !== undefined) qb = qb.where('due_date', '>=', q.due_from);
  if (q.due_to !== undefined) qb = qb.where('due_date', '<=', q.due_to);
  if (q.external_id !== undefined) qb = qb.where('external_id', '=', q.external_id);
  if (q.updated_since) qb = qb.where('updated_at', '>=', toIso(q.updated_since));
  if (q.q) qb = qb.where(containsIndexed(db, 'tasks', ['name'], q.q));
  return qb;
}

export function listTasks(db: Db, accountId: number, q: TaskListQuery) {
  return paginate(() => tasksQuery(db, accountId, q), q, {
    sortable: TASK_SORTABLE,
    total: unfiltered(q) ? keptTotal(db, accountId, 'tasks', Boolean(q.archived)) : undefined,
    pages: PAGES[q.archived ? 1 : 0]!(db, accountId),
    jsonPages: TASK_JSON_PAGES[q.archived ? 1 : 0]!(db, accountId),
  });
}

/** Prepared by its shape (shared/owned.ts): creates spell every column, so they share one. */
export const insertTask = (db: Db, values: Insertable<TaskTable>) => insertReturning(db, 'tasks', values);

/** Several new tasks in one statement, as stored, in the order given (a batch of creates). */
export const insertTasks = (db: Db, values: readonly Insertable<TaskTable>[]) =>
  insertRowsReturning(db, 'tasks', values);

/**
 * What the statement checks of each new task (`RowGuard`), so that a create naming no other
 * record than its project reads nothing first: its project is the account's and not archived,
 * and the account requires no custom field of tasks — unless the row sets custom fields, which
 * the create then checked before. A row that fails it fails the statement (23502 on
 * `project_id`) and the create runs its checks, which name the field.
 */
const TASK_GUARD: RowGuard = {
  key: 'project, required custom fields',
  column: 'project_id',
  holds: sql`exists (
      select 1 from projects p
      where p.account_id = j.account_id and p.id = j.project_id and p.archived_at is null
    ) and (j.custom_fields <> '{}' or not exists (
      select 1 from custom_field_definitions d
      where d.account_id = j.account_id and d.entity = 'task' and d.required <> 0
    ))`,
};

/** PostgreSQL: new tasks with their events in one statement (see `insertWithEventsAsOne`); their ids. */
export const insertTasksAsOne = (
  db: Db,
  values: readonly Insertable<TaskTable>[],
  events: readonly EventInput[],
) => insertWithEventsAsOne(db, 'tasks', values, events, TASK_GUARD);

export const updateTask = (db: Db, accountId: number, id: number, values: Updateable<TaskTable>) =>
  db
    .updateTable('tasks')
    .set(values)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();

export const findComment = (db: Db, accountId: number, id: number) =>
  db
    .selectFrom('task_comments')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();

export const listComments = (
  db: Db,
  accountId: number,
  taskId: number,
  page: { page?: number; per_page?: number },
) =>
  paginate(
    db
      .selectFrom('task_comments')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('task_id', '=', taskId)
      .orderBy('id'),
    page,
  );

export const insertComment = (db: Db, values: Insertable<TaskCommentTable>) =>
  db.insertInto('task_comments').values(values).returningAll().executeTakeFirstOrThrow();

export const updateComment = (db: Db, accountId: number, id: number, values: Updateable<TaskCommentTable>) =>
  db
    .updateTable('task_comments')
    .set(values)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();

export async function deleteComment(db: Db, accountId: number, id: number): Promise<void> {
  await db.deleteFrom('task_comments').where('account_id', '=', accountId).where('id', '=', id).execute();
}
