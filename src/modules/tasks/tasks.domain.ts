import type { FieldError } from '../../shared/errors.js';

export type LinkField = 'phase_id' | 'milestone_id' | 'epic_id';

export interface LinkCheck {
  field: LinkField;
  /** The id the task would point at, or null for none. */
  id: number | null;
  /** The record behind `id` in the account, if there is one. */
  found?: { project_id: number };
}

const NOUN: Record<LinkField, string> = { phase_id: 'phase', milestone_id: 'milestone', epic_id: 'epic' };

/**
 * A task's phase, milestone and epic must all belong to the task's project. Returns one error
 * per link that points nowhere or into another project.
 */
export function linkErrors(projectId: number, links: LinkCheck[]): FieldError[] {
  const errors: FieldError[] = [];
  for (const l of links) {
    if (l.id === null) continue;
    if (!l.found) errors.push({ field: l.field, message: `no such ${NOUN[l.field]}` });
    else if (l.found.project_id !== projectId)
      errors.push({
        field: l.field,
        message: `${NOUN[l.field]} ${l.id} belongs to project ${l.found.project_id}, not to project ${projectId}`,
      });
  }
  return errors;
}

/** The due date may not lie before the start date. */
export function dateErrors(start: string | null, due: string | null): FieldError[] {
  return start !== null && due !== null && due < start
    ? [{ field: 'due_date', message: 'must not be before start_date' }]
    : [];
}

/** `completed_at` is set when a task becomes done and cleared when it is reopened. */
export function completedAt(
  before: { status: string; completed_at: string | null } | undefined,
  status: string,
  now: string,
): string | null {
  if (status !== 'done') return null;
  return before?.status === 'done' ? before.completed_at : now;
}
