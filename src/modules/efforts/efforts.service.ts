import type { Db } from '../../db/index.js';
import { type AuthContext, hasScope } from '../../plugins/auth.js';
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
