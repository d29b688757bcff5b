import type { Db } from '../../db/index.js';
import { transact } from '../../db/transact.js';
import { changesNothing } from '../../shared/changes.js';
import { AppError, type FieldError, notFound, validationFailed } from '../../shared/errors.js';
import { fromCents, toCents } from '../../shared/money.js';
import { nowIso } from '../../shared/time.js';
import { type AuthContext, hasScope } from '../../shared/tokens.js';
import { userExists } from '../users/users.public.js';
import { invoiceOfEffort, projectInAccount, taskInAccount } from './effort-links.read-model.js';
import { billedFieldsChanged, needsExtendedWrite, resolvedProject } from './efforts.domain.js';
import type { EffortRow } from './efforts.repository.js';
import * as repo from './efforts.repository.js';
import type { Effort, EffortCreate, EffortListQuery, EffortType, EffortUpdate } from './efforts.schemas.js';

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
  hourly_rate: r.hourly_rate === null ? null : fromCents(r.hourly_rate),
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

/** 403 unless the token may write this effort (another user's, or admin time: extended). */
function assertMayWrite(auth: AuthContext, effort: { user_id: number; type: string }): void {
  if (needsExtendedWrite(auth.userId, effort) && !hasScope(auth, 'efforts:extended:write'))
    throw new AppError(
      'insufficient_scope',
      'Efforts of other users and admin efforts need efforts:extended:write',
      { extra: { required_scopes: ['efforts:write', 'efforts:extended:write'] } },
    );
}

interface EffortRefs {
  user_id: number;
  project_id: number | null;
  task_id: number | null;
}

/**
 * The effort's user, project and task exist in the account (422 naming the field, as for any
 * id in a body) and agree; answers the project the effort ends up on.
 */
async function checkedRefs(
  db: Db,
  auth: AuthContext,
  refs: EffortRefs,
  check: Partial<Record<keyof EffortRefs, boolean>>,
) {
  const errors: FieldError[] = [];
  if (check.user_id && !(await userExists(db, auth.accountId, refs.user_id)))
    errors.push({ field: 'user_id', message: 'no such user in this account' });
  if (
    check.project_id &&
    refs.project_id !== null &&
    !(await projectInAccount(db, auth.accountId, refs.project_id))
  )
    errors.push({ field: 'project_id', message: 'no such project' });
  let taskProject: number | undefined;
  if (refs.task_id !== null) {
    const task = await taskInAccount(db, auth.accountId, refs.task_id);
    if (!task) errors.push({ field: 'task_id', message: 'no such task' });
    else taskProject = task.project_id;
  }
  const resolved = resolvedProject(refs.project_id, taskProject);
  if (!errors.some((e) => e.field === 'project_id')) errors.push(...resolved.errors);
  if (errors.length > 0) throw validationFailed(errors);
  return resolved.projectId;
}

/** A rate from the wire in cents (the schema has already refused more than two decimals). */
const rateCents = (value: number | null | undefined) =>
  value === undefined ? undefined : value === null ? null : toCents(value)!;

/** POST /efforts: the token's user unless `user_id` says otherwise. */
export function createEffort(db: Db, auth: AuthContext, body: EffortCreate): Promise<EffortRow> {
  const type = body.type ?? 'work';
  const userId = body.user_id ?? auth.userId;
  assertMayWrite(auth, { user_id: userId, type });
  return transact(db, async (trx) => {
    const refs = { user_id: userId, project_id: body.project_id ?? null, task_id: body.task_id ?? null };
    const projectId = await checkedRefs(trx, auth, refs, {
      user_id: body.user_id !== undefined,
      project_id: true,
    });
    const now = nowIso();
    return repo.insertEffortReturning(trx, {
      account_id: auth.accountId,
      user_id: userId,
      project_id: projectId,
      task_id: refs.task_id,
      date: body.date,
      duration_minutes: body.duration_minutes,
      billable: (body.billable ?? type !== 'admin') ? 1 : 0,
      type,
      description: body.description ?? null,
      hourly_rate: rateCents(body.hourly_rate) ?? null,
      created_at: now,
      updated_at: now,
    });
  });
}

/** 404 for another account's effort; then the write rules on the effort as it is. */
async function writableRow(db: Db, auth: AuthContext, id: number): Promise<EffortRow> {
  const row = await repo.findEffort(db, auth.accountId, id, true);
  if (!row) throw notFound('Effort');
  assertMayWrite(auth, row);
  return row;
}

const effortBilled = (id: number, invoiceId: number, fields: string[]) =>
  new AppError(
    'effort_billed',
    `Effort ${id} stands on invoice ${invoiceId}${fields.length ? `: ${fields.join(', ')} cannot change` : ''}`,
    { extra: { invoice_id: invoiceId } },
  );

/**
 * PATCH /efforts/{id}. On an effort that stands on an invoice only what leaves its billed
 * value alone may change (the description): 409 `effort_billed` otherwise.
 */
export function updateEffort(db: Db, auth: AuthContext, id: number, body: EffortUpdate): Promise<EffortRow> {
  return transact(db, async (trx) => {
    const row = await writableRow(trx, auth, id);
    const { hourly_rate, billable, ...fields } = body;
    const values: Partial<EffortRow> = { ...fields };
    if (hourly_rate !== undefined) values.hourly_rate = rateCents(hourly_rate)!;
    if (billable !== undefined) values.billable = billable ? 1 : 0;
    // A task named without a project moves the effort to the task's project.
    const taskOnly = values.project_id === undefined && values.task_id != null;
    const refs = {
      user_id: values.user_id ?? row.user_id,
      project_id: values.project_id !== undefined ? values.project_id : taskOnly ? null : row.project_id,
      task_id: values.task_id !== undefined ? values.task_id : row.task_id,
    };
    assertMayWrite(auth, { user_id: refs.user_id, type: values.type ?? row.type });
    const projectId = await checkedRefs(trx, auth, refs, {
      user_id: values.user_id !== undefined,
      project_id: values.project_id !== undefined,
    });
    if (values.project_id !== undefined || values.task_id !== undefined) values.project_id = projectId;
    if (changesNothing(row, values)) return row;
    const invoiceId = await invoiceOfEffort(trx, auth.accountId, id);
    if (invoiceId !== undefined) {
      const fields = billedFieldsChanged(row, values);
      if (fields.length > 0) throw effortBilled(id, invoiceId, fields);
    }
    return repo.updateEffort(trx, auth.accountId, id, { ...values, updated_at: nowIso() });
  });
}

/** DELETE /efforts/{id}: gone for good; 409 `effort_billed` while it stands on an invoice. */
export function deleteEffort(db: Db, auth: AuthContext, id: number): Promise<void> {
  return transact(db, async (trx) => {
    await writableRow(trx, auth, id);
    const invoiceId = await invoiceOfEffort(trx, auth.accountId, id);
    if (invoiceId !== undefined) throw effortBilled(id, invoiceId, []);
    await repo.deleteEffort(trx, auth.accountId, id);
  });
}
