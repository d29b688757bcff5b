import { importData } from '../src/import/index.js';
import type { Api, TestContext } from './helpers.js';

/** Shared set-up of the tests of writing the work (not a test file itself). */

const firstId = async (
  ctx: TestContext,
  table: 'clients' | 'contacts' | 'projects' | 'tasks' | 'portfolios' | 'project_groups',
): Promise<number> =>
  (
    await ctx.db
      .selectFrom(table)
      .select('id')
      .where('account_id', '=', ctx.other.accountId)
      .orderBy('id')
      .executeTakeFirstOrThrow()
  ).id;

/** Records of the other account: ids that must be refused in paths and bodies. */
export async function seedOtherTenant(ctx: TestContext) {
  await importData(
    ctx.db,
    {
      clients: [{ key: 'x', name: 'Stranger client' }],
      portfolios: [{ key: 'pf', name: 'Stranger portfolio' }],
      project_groups: [{ key: 'g', name: 'Stranger group' }],
      projects: [{ key: 'p', client: 'x', portfolio: 'pf', project_groups: ['g'], name: 'Stranger project' }],
      tasks: [{ project: 'p', name: 'Stranger task' }],
      contacts: [{ last_name: 'Stranger' }],
    },
    { accountId: ctx.other.accountId },
  );
  return {
    client: await firstId(ctx, 'clients'),
    portfolio: await firstId(ctx, 'portfolios'),
    group: await firstId(ctx, 'project_groups'),
    project: await firstId(ctx, 'projects'),
    task: await firstId(ctx, 'tasks'),
    contact: await firstId(ctx, 'contacts'),
    user: ctx.other.users.member,
  };
}

type Change = { resource: string; id: number; action: string };

/**
 * The change feed's entries for one record after `after` (every page), and where it ended. On
 * PostgreSQL an entry shows once every older transaction on the server has ended (other test
 * files' too), so a reader that expects `want` entries asks again for a moment.
 */
export async function feedOf(api: Api, resource: string, id: number, after?: string, want = 1) {
  const entries: Change[] = [];
  let cursor = after;
  for (let tries = 0; ; ) {
    const res = await api.get(`/changes?limit=1000${cursor ? `&after=${cursor}` : ''}`);
    entries.push(...res.body.data.filter((c: Change) => c.resource === resource && c.id === id));
    cursor = res.body.meta.next_cursor;
    if (res.body.meta.has_more) continue;
    if (entries.length >= want || ++tries > 50) return { entries, cursor };
    await new Promise((r) => setTimeout(r, 100));
  }
}
