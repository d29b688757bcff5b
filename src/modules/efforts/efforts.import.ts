import { Type } from 'typebox';
import type { ImportContext, ImportSection } from '../../import/context.js';
import { validationFailed } from '../../shared/errors.js';
import { keyedSection } from '../../shared/keyed-section.js';
import { DateString } from '../../shared/schemas.js';
import { projectIdOfTask } from '../tasks/tasks.public.js';
import { userRef } from '../users/users.public.js';
import { insertEffort } from './efforts.repository.js';
import { EffortType } from './efforts.schemas.js';

const EffortItem = Type.Object(
  {
    user: Type.String({ description: 'Key or e-mail of a user' }),
    project: Type.Optional(Type.String({ description: 'Key of a project in the file' })),
    task: Type.Optional(Type.String({ description: 'Key of a task in the file (sets the project too)' })),
    date: DateString,
    duration_minutes: Type.Integer({ minimum: 0, maximum: 24 * 60 }),
    billable: Type.Optional(Type.Boolean()),
    type: Type.Optional(EffortType),
    description: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

interface EffortItem {
  user: string;
  project?: string;
  task?: string;
  date: string;
  duration_minutes: number;
  billable?: boolean;
  type?: string;
  description?: string;
}

export const effortsSection: ImportSection = keyedSection<ImportContext, EffortItem>({
  key: 'efforts',
  item: EffortItem,
  description:
    'Efforts (time entries) of users on projects and tasks. `type` work (default), travel or admin; admin time is not billable by default.',
  async insert(ctx, e, at) {
    let projectId = ctx.optionalRef('projects', e.project, `${at}.project`);
    const taskId = ctx.optionalRef('tasks', e.task, `${at}.task`);
    if (taskId !== null) {
      const taskProject = await projectIdOfTask(ctx.trx, ctx.accountId, taskId);
      if (projectId !== null && projectId !== taskProject)
        throw validationFailed([{ field: `${at}.task`, message: 'belongs to another project' }]);
      projectId = taskProject;
    }
    const type = e.type ?? 'work';
    await insertEffort(ctx.trx, {
      account_id: ctx.accountId,
      user_id: await userRef(ctx, e.user, `${at}.user`),
      project_id: projectId,
      task_id: taskId,
      date: e.date,
      duration_minutes: e.duration_minutes,
      billable: (e.billable ?? type !== 'admin') ? 1 : 0,
      type,
      description: e.description ?? null,
    });
    // Nothing refers to an effort: only counted.
    return { key: undefined, id: 0 };
  },
});
