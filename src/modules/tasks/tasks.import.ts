import { Type } from 'typebox';
import type { ImportContext, ImportSection } from '../../import/context.js';
import { validationFailed } from '../../shared/errors.js';
import { DateString } from '../../shared/schemas.js';
import { validateImportedCustomFields } from '../custom-fields/custom-fields.public.js';
import { userRef } from '../users/users.public.js';
import { linkChecks } from './project-links.read-model.js';
import { completedAt, dateErrors, type LinkField, linkErrors } from './tasks.domain.js';
import { insertComment, insertTask } from './tasks.repository.js';
import { TaskPriority, TaskStatus } from './tasks.schemas.js';

const Ref = (what: string) => Type.Optional(Type.String({ description: `Key of a ${what} in the file` }));

const TaskItem = Type.Object(
  {
    key: Type.Optional(Type.String({ minLength: 1 })),
    project: Type.String({ description: 'Key of a project in the file' }),
    phase: Ref('phase'),
    milestone: Ref('milestone'),
    epic: Ref('epic'),
    name: Type.String({ minLength: 1 }),
    description: Type.Optional(Type.String()),
    status: Type.Optional(TaskStatus),
    priority: Type.Optional(TaskPriority),
    assignee: Type.Optional(Type.String({ description: 'Key or e-mail of a user' })),
    created_by: Type.Optional(Type.String({ description: 'Key or e-mail of a user' })),
    start_date: Type.Optional(DateString),
    due_date: Type.Optional(DateString),
    estimate_minutes: Type.Optional(Type.Integer({ minimum: 0 })),
    external_id: Type.Optional(Type.String({ minLength: 1 })),
    custom_fields: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    archived: Type.Optional(Type.Boolean()),
    comments: Type.Optional(
      Type.Array(
        Type.Object(
          {
            author: Type.String({ description: 'Key or e-mail of a user' }),
            content: Type.String({ minLength: 1 }),
          },
          { additionalProperties: false },
        ),
      ),
    ),
  },
  { additionalProperties: false },
);

interface TaskItem {
  key?: string;
  project: string;
  phase?: string;
  milestone?: string;
  epic?: string;
  name: string;
  description?: string;
  status?: string;
  priority?: string;
  assignee?: string;
  created_by?: string;
  start_date?: string;
  due_date?: string;
  estimate_minutes?: number;
  external_id?: string;
  custom_fields?: Record<string, unknown>;
  archived?: boolean;
  comments?: { author: string; content: string }[];
}

const LINKS = [
  ['phase_id', 'phase', 'phases'],
  ['milestone_id', 'milestone', 'milestones'],
  ['epic_id', 'epic', 'epics'],
] as const;

async function importTask(ctx: ImportContext, t: TaskItem, at: string): Promise<void> {
  const { trx, accountId } = ctx;
  const project_id = ctx.ref('projects', t.project, `${at}.project`);
  const ids = {} as Record<LinkField, number | null>;
  for (const [field, prop, kind] of LINKS) ids[field] = ctx.optionalRef(kind, t[prop], `${at}.${prop}`);
  const checks = await linkChecks(trx, accountId, ids);
  const errors = [...linkErrors(project_id, checks), ...dateErrors(t.start_date ?? null, t.due_date ?? null)];
  if (errors.length > 0) throw validationFailed(errors.map((e) => ({ ...e, field: `${at}.${e.field}` })));
  const custom = await validateImportedCustomFields(trx, accountId, 'task', t.custom_fields, at);
  const now = new Date().toISOString();
  const status = t.status ?? 'open';
  const row = await insertTask(trx, {
    account_id: accountId,
    project_id,
    ...ids,
    name: t.name,
    description: t.description ?? null,
    status,
    priority: t.priority ?? 'normal',
    assignee_id: t.assignee ? await userRef(ctx, t.assignee, `${at}.assignee`) : null,
    created_by_id: t.created_by ? await userRef(ctx, t.created_by, `${at}.created_by`) : null,
    start_date: t.start_date ?? null,
    due_date: t.due_date ?? null,
    estimate_minutes: t.estimate_minutes ?? null,
    external_id: t.external_id ?? null,
    custom_fields: JSON.stringify(custom),
    completed_at: completedAt(undefined, status, now),
    archived_at: t.archived ? now : null,
    created_at: now,
    updated_at: now,
  });
  ctx.remember('tasks', t.key, row.id);
  for (const [j, c] of (t.comments ?? []).entries()) {
    const author_id = await userRef(ctx, c.author, `${at}.comments.${j}.author`);
    await insertComment(trx, { account_id: accountId, task_id: row.id, author_id, content: c.content });
  }
}

export const tasksSection: ImportSection = {
  key: 'tasks',
  item: TaskItem,
  description:
    'Tasks of projects (keys), optionally in a phase, milestone and epic of the same project, with comments. Tasks are normally created through POST /tasks; this is for migrations and demo data.',
  async run(ctx, items) {
    for (const [i, t] of (items as TaskItem[]).entries()) await importTask(ctx, t, `tasks.${i}`);
  },
};
