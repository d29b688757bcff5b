import type { Db } from '../../db/index.js';
import { AppError, notFound } from '../../shared/errors.js';
import { type AuthContext, hasScope } from '../../shared/tokens.js';
import type { EffortRow } from './efforts.repository.js';
import * as repo from './efforts.repository.js';
import type { Effort, EffortListQuery, EffortType } from './efforts.schemas.js';

export const toEffort = (r: EffortRow): Effort => ({
  id: r.id,
  user_id: r.user_id,
  project_id: r.project_id,
  task_id: r.task_id,
  date: r.date,
  duration_minutes: r.duration_minutes,
  billable: Boolean(r.billable),
  type: r.type as EffortType,
  description: r.description,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

/** The specification's rule: `admin` efforts only with `efforts:extended:read` as well. */
export const seesAdminEfforts = (auth: AuthContext) => hasScope(auth, 'efforts:extended:read');

export const listEfforts = (db: Db, auth: AuthContext, q: EffortListQuery) =>
  repo.listEfforts(db, auth.accountId, q, seesAdminEfforts(auth));

/**
 * One effort as the list shows it to this token (the change feed's read of one record). An
 * `admin` effort, which the list leaves out without `efforts:extended:read`, is refused with
 * 403 rather than "not found", so the feed hides its entries instead of showing them without data.
 */
export async function getEffort(db: Db, auth: AuthContext, id: number): Promise<Effort> {
  const row = await repo.findEffort(db, auth.accountId, id);
  if (!row) throw notFound('Effort');
  if (row.type === 'admin' && !seesAdminEfforts(auth))
    throw new AppError('insufficient_scope', 'Admin efforts need efforts:extended:read');
  return toEffort(row);
}
