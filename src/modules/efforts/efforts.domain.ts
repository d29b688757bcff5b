/**
 * The rules of writing efforts (beyond the specification), as pure functions: who may write
 * which effort, what a billed effort may still change, and how a task and a project agree.
 */
import { changedFields } from '../../shared/changes.js';
import type { FieldError } from '../../shared/errors.js';

/** The columns an effort's invoice line was priced from: fixed once it stands on an invoice. */
export const BILLED_FIELDS = [
  'user_id',
  'project_id',
  'task_id',
  'date',
  'duration_minutes',
  'billable',
  'type',
  'hourly_rate',
] as const;

/** The billed fields a write would change (empty: it may go ahead on a billed effort). */
export function billedFieldsChanged(row: object, values: Record<string, unknown>): string[] {
  const changed = changedFields(row, values);
  return BILLED_FIELDS.filter((f) => f in changed);
}

/**
 * `efforts:write` covers the token user's own work and travel; another user's effort, or
 * `admin` time, needs `efforts:extended:write` too.
 */
export const needsExtendedWrite = (tokenUserId: number, effort: { user_id: number; type: string }) =>
  effort.user_id !== tokenUserId || effort.type === 'admin';

/**
 * The project an effort ends up on: a task alone sets it; a task and a project must agree.
 * `task` is the task's own project id, undefined when the effort names no task.
 */
export function resolvedProject(
  projectId: number | null,
  taskProjectId: number | undefined,
): { projectId: number | null; errors: FieldError[] } {
  if (taskProjectId === undefined) return { projectId, errors: [] };
  if (projectId !== null && projectId !== taskProjectId)
    return {
      projectId,
      errors: [
        {
          field: 'task_id',
          message: `task belongs to project ${taskProjectId}, not to project ${projectId}`,
        },
      ],
    };
  return { projectId: taskProjectId, errors: [] };
}
