import { importData } from '../src/import/index.js';
import type { TestContext } from './helpers.js';

/** Shared set-up of the tests of writing the work (not a test file itself). */

/** A project and a task of the other account: ids that must be refused in bodies. */
export async function seedOtherTenant(ctx: TestContext) {
  await importData(
    ctx.db,
    {
      clients: [{ key: 'x', name: 'Stranger client' }],
      projects: [{ key: 'p', client: 'x', name: 'Stranger project' }],
      tasks: [{ project: 'p', name: 'Stranger task' }],
    },
    { accountId: ctx.other.accountId },
  );
  const project = await ctx.db
    .selectFrom('projects')
    .select('id')
    .where('account_id', '=', ctx.other.accountId)
    .executeTakeFirstOrThrow();
  const task = await ctx.db
    .selectFrom('tasks')
    .select('id')
    .where('account_id', '=', ctx.other.accountId)
    .executeTakeFirstOrThrow();
  return { project: project.id, task: task.id, user: ctx.other.users.member };
}
