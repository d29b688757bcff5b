import { Type } from 'typebox';
import type { ImportSection } from '../../import/context.js';
import { DateString } from '../../shared/schemas.js';
import { importError, userRef } from '../projects/import-refs.js';
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

export const effortsSection: ImportSection = {
  key: 'efforts',
  item: EffortItem,
  description:
    'Efforts (time entries) of users on projects and tasks. `type` work (default), travel or admin; admin time is not billable by default.',
  async run(ctx, items) {
    for (const [i, e] of (items as EffortItem[]).entries()) {
      const at = `efforts.${i}`;
      let projectId = ctx.optionalRef('projects', e.project, `${at}.project`);
      const taskId = ctx.optionalRef('tasks', e.task, `${at}.task`);
      if (taskId !== null) {
        const task = await ctx.trx
          .selectFrom('tasks')
          .select('project_id')
          .where('id', '=', taskId)
          .executeTakeFirstOrThrow();
        if (projectId !== null && projectId !== task.project_id)
          throw importError([{ field: `${at}.task`, message: 'belongs to another project' }]);
        projectId = task.project_id;
      }
      const type = e.type ?? 'work';
      await ctx.trx
        .insertInto('efforts')
        .values({
          account_id: ctx.accountId,
          user_id: await userRef(ctx, e.user, `${at}.user`),
          project_id: projectId,
          task_id: taskId,
          date: e.date,
          duration_minutes: e.duration_minutes,
          billable: (e.billable ?? type !== 'admin') ? 1 : 0,
          type,
          description: e.description ?? null,
        })
        .execute();
      ctx.remember('efforts', undefined, 0);
    }
  },
};
