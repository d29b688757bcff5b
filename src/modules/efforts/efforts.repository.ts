import type { Insertable, Selectable, Updateable } from 'kysely';
import { type Db, isPostgres } from '../../db/index.js';
import { keptTotal } from '../../shared/list-counts.js';
import { insertReturning, updateOwnedOrThrow } from '../../shared/owned.js';
import { paginate, type Sortable, unfiltered } from '../../shared/paging.js';
import { toIso } from '../../shared/time.js';
import type { EffortListQuery } from './efforts.schemas.js';
import type { EffortTable } from './efforts.tables.js';

export type EffortRow = Selectable<EffortTable>;

const EFFORT_SORTABLE: Sortable = {
  date: {},
  user_id: {},
  project_id: { nullable: true },
  task_id: { nullable: true },
  duration_minutes: {},
};

export function findEffort(db: Db, accountId: number, id: number, lock = false) {
  let qb = db.selectFrom('efforts').selectAll().where('account_id', '=', accountId).where('id', '=', id);
  // FOR UPDATE conflicts with the key-share lock a new invoice_efforts row takes on its effort,
  // so a write and a billing of the same effort wait for each other (SQLite has one writer).
  if (lock && isPostgres(db)) qb = qb.forUpdate();
  return qb.executeTakeFirst();
}

export function listEfforts(db: Db, accountId: number, q: EffortListQuery, includeAdmin: boolean) {
  let qb = db.selectFrom('efforts').selectAll().where('account_id', '=', accountId);
  if (!includeAdmin) qb = qb.where('type', '!=', 'admin');
  if (q.date_from !== undefined) qb = qb.where('date', '>=', q.date_from);
  if (q.date_to !== undefined) qb = qb.where('date', '<=', q.date_to);
  if (q.user_id !== undefined) qb = qb.where('user_id', '=', q.user_id);
  if (q.project_id !== undefined) qb = qb.where('project_id', '=', q.project_id);
  if (q.task_id !== undefined) qb = qb.where('task_id', '=', q.task_id);
  if (q.type !== undefined) qb = qb.where('type', '=', q.type);
  if (q.billable !== undefined) qb = qb.where('billable', '=', q.billable ? 1 : 0);
  if (q.updated_since) qb = qb.where('updated_at', '>=', toIso(q.updated_since));
  // The kept counts: `total` all efforts, `active` those that are not admin time.
  return paginate(qb, q, {
    sortable: EFFORT_SORTABLE,
    total: unfiltered(q) ? keptTotal(db, accountId, 'efforts', includeAdmin) : undefined,
  });
}

export async function insertEffort(db: Db, values: Insertable<EffortTable>): Promise<void> {
  await db.insertInto('efforts').values(values).execute();
}

export const insertEffortReturning = (db: Db, values: Insertable<EffortTable>): Promise<EffortRow> =>
  insertReturning(db, 'efforts', values);

export const updateEffort = (db: Db, accountId: number, id: number, values: Updateable<EffortTable>) =>
  updateOwnedOrThrow(db, 'efforts', accountId, id, values);

export async function deleteEffort(db: Db, accountId: number, id: number): Promise<void> {
  await db.deleteFrom('efforts').where('account_id', '=', accountId).where('id', '=', id).execute();
}
