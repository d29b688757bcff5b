import { importData } from '../src/import/index.js';
import type { TestContext } from './helpers.js';

/** Ids of the records `seedWork` imported, by a short name. */
export interface WorkFixture {
  clients: { alpha: number; beta: number };
  portfolios: { digital: number; old: number };
  groups: { retainer: number; fixed: number };
  projects: { web: number; app: number; legacy: number };
  phases: { webConcept: number; webBuild: number; appBuild: number };
  milestones: { webDesign: number; appBeta: number };
  epics: { webShop: number; appLogin: number };
  tasks: { wireframes: number; shop: number; archived: number; appLogin: number };
  users: { admin: number; member: number };
}

async function emailOf(ctx: TestContext, id: number): Promise<string> {
  const row = await ctx.db.selectFrom('users').select('email').where('id', '=', id).executeTakeFirstOrThrow();
  return row.email;
}

async function idOf(
  ctx: TestContext,
  table: 'clients' | 'portfolios' | 'project_groups' | 'projects' | 'tasks',
  accountId: number,
  name: string,
): Promise<number> {
  const row = await ctx.db
    .selectFrom(table)
    .select('id')
    .where('account_id', '=', accountId)
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return row.id;
}

async function partOf(
  ctx: TestContext,
  table: 'project_phases' | 'project_milestones' | 'project_epics',
  projectId: number,
  name: string,
): Promise<number> {
  const row = await ctx.db
    .selectFrom(table)
    .select('id')
    .where('project_id', '=', projectId)
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * Imports a small work-management data set into the test's main account (through the CLI
 * import, the only way projects come in) and returns the ids.
 */
export async function seedWork(ctx: TestContext): Promise<WorkFixture> {
  const accountId = ctx.account.accountId;
  const admin = await emailOf(ctx, ctx.account.users.admin);
  const member = await emailOf(ctx, ctx.account.users.member);
  await importData(
    ctx.db,
    {
      custom_fields: [
        { entity: 'project', key: 'cost_center', label: 'Cost center', type: 'text' },
        { entity: 'task', key: 'story_points', label: 'Story points', type: 'number' },
        { entity: 'task', key: 'channel', label: 'Channel', type: 'select', options: ['web', 'mobile'] },
        { entity: 'task', key: 'customer_visible', label: 'Customer visible', type: 'boolean' },
        { entity: 'task', key: 'go_live', label: 'Go-live', type: 'date' },
        { entity: 'task', key: 'notes', label: 'Notes', type: 'text' },
      ],
      clients: [
        {
          key: 'alpha',
          name: 'Alpha GmbH',
          shortcode: 'ALPHA',
          // An address, so that invoices to it can be booked (§14 (4) UStG).
          street: 'Alphaweg 1',
          zip: '10115',
          city: 'Berlin',
          country_code: 'DE',
        },
        { key: 'beta', name: 'Beta Ltd' },
      ],
      portfolios: [
        { key: 'digital', name: 'Digital', description: 'Web and apps' },
        { key: 'old', name: 'Old portfolio', archived: true },
      ],
      project_groups: [
        { key: 'retainer', name: 'Retainer' },
        { key: 'fixed', name: 'Fixed price' },
      ],
      projects: [
        {
          key: 'web',
          client: 'alpha',
          portfolio: 'digital',
          project_groups: ['retainer', 'fixed'],
          identifier: 'P-1',
          name: 'Website relaunch',
          description: 'New website',
          status: 'active',
          start_date: '2026-09-01',
          end_date: '2026-12-31',
          budget_minutes: 6000,
          custom_fields: { cost_center: 'CC-7' },
          team: [
            { user: admin, role: 'manager' },
            { user: member, role: 'developer' },
          ],
          guests: [{ name: 'Carla Client', email: 'carla@alpha.example', contact_id: 42 }, { name: 'Bob' }],
          phases: [
            { key: 'web_concept', name: 'Concept', start_date: '2026-09-01', end_date: '2026-09-30' },
            { key: 'web_build', name: 'Build' },
          ],
          milestones: [
            { key: 'web_design', name: 'Design approved', due_date: '2026-09-30', completed: true },
            { name: 'Go-live', due_date: '2026-12-15' },
          ],
          epics: [
            { key: 'web_shop', name: 'Shop', status: 'in_progress' },
            { name: 'CMS', status: 'done' },
          ],
        },
        {
          key: 'app',
          client: 'beta',
          project_groups: ['retainer'],
          identifier: 'P-2',
          name: 'Mobile app',
          status: 'planned',
          billable: false,
          team: [{ user: member }],
          phases: [{ key: 'app_build', name: 'App build' }],
          milestones: [{ key: 'app_beta', name: 'Beta' }],
          epics: [{ key: 'app_login', name: 'Login' }],
        },
        { key: 'legacy', client: 'ALPHA', name: 'Legacy intranet', status: 'completed', archived: true },
      ],
      tasks: [
        {
          project: 'web',
          phase: 'web_concept',
          milestone: 'web_design',
          name: 'Wireframes',
          status: 'done',
          assignee: member,
          due_date: '2026-09-20',
          custom_fields: { channel: 'web' },
          comments: [{ author: admin, content: 'Approved by the client' }],
        },
        {
          project: 'web',
          phase: 'web_build',
          epic: 'web_shop',
          name: 'Shop API',
          status: 'in_progress',
          priority: 'high',
          assignee: admin,
          due_date: '2026-11-06',
          external_id: 'jira-1',
        },
        { project: 'web', name: 'Old task', archived: true, due_date: '2026-10-01' },
        {
          project: 'app',
          phase: 'app_build',
          epic: 'app_login',
          name: 'Login screen',
          due_date: '2026-10-15',
        },
      ],
      efforts: [
        { user: member, project: 'web', date: '2026-09-14', duration_minutes: 120, description: 'wires' },
        {
          user: admin,
          project: 'web',
          date: '2026-09-15',
          duration_minutes: 60,
          type: 'travel',
          billable: false,
        },
        { user: admin, date: '2026-09-16', duration_minutes: 30, type: 'admin', description: 'reporting' },
        { user: member, project: 'app', date: '2026-10-01', duration_minutes: 240 },
      ],
    },
    { accountId },
  );
  const projects = {
    web: await idOf(ctx, 'projects', accountId, 'Website relaunch'),
    app: await idOf(ctx, 'projects', accountId, 'Mobile app'),
    legacy: await idOf(ctx, 'projects', accountId, 'Legacy intranet'),
  };
  return {
    clients: {
      alpha: await idOf(ctx, 'clients', accountId, 'Alpha GmbH'),
      beta: await idOf(ctx, 'clients', accountId, 'Beta Ltd'),
    },
    portfolios: {
      digital: await idOf(ctx, 'portfolios', accountId, 'Digital'),
      old: await idOf(ctx, 'portfolios', accountId, 'Old portfolio'),
    },
    groups: {
      retainer: await idOf(ctx, 'project_groups', accountId, 'Retainer'),
      fixed: await idOf(ctx, 'project_groups', accountId, 'Fixed price'),
    },
    projects,
    phases: {
      webConcept: await partOf(ctx, 'project_phases', projects.web, 'Concept'),
      webBuild: await partOf(ctx, 'project_phases', projects.web, 'Build'),
      appBuild: await partOf(ctx, 'project_phases', projects.app, 'App build'),
    },
    milestones: {
      webDesign: await partOf(ctx, 'project_milestones', projects.web, 'Design approved'),
      appBeta: await partOf(ctx, 'project_milestones', projects.app, 'Beta'),
    },
    epics: {
      webShop: await partOf(ctx, 'project_epics', projects.web, 'Shop'),
      appLogin: await partOf(ctx, 'project_epics', projects.app, 'Login'),
    },
    tasks: {
      wireframes: await idOf(ctx, 'tasks', accountId, 'Wireframes'),
      shop: await idOf(ctx, 'tasks', accountId, 'Shop API'),
      archived: await idOf(ctx, 'tasks', accountId, 'Old task'),
      appLogin: await idOf(ctx, 'tasks', accountId, 'Login screen'),
    },
    users: ctx.account.users,
  };
}

/** Events of a kind for one resource, oldest first, with their payload parsed. */
export async function eventsFor(ctx: TestContext, kind: string, resourceId: number) {
  const rows = await ctx.db
    .selectFrom('events')
    .selectAll()
    .where('kind', '=', kind)
    .where('resource_id', '=', resourceId)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ ...r, payload: JSON.parse(r.payload) }));
}

/** A project in the other account, for 404 isolation tests. */
export async function seedOtherAccount(ctx: TestContext) {
  await importData(
    ctx.db,
    {
      clients: [{ key: 'c', name: 'Other client' }],
      projects: [
        { key: 'p', client: 'c', name: 'Other project', phases: [{ key: 'ph', name: 'Other phase' }] },
      ],
      tasks: [{ project: 'p', phase: 'ph', name: 'Other task', comments: [] }],
    },
    { accountId: ctx.other.accountId },
  );
  const project = await idOf(ctx, 'projects', ctx.other.accountId, 'Other project');
  return {
    project,
    phase: await partOf(ctx, 'project_phases', project, 'Other phase'),
    task: await idOf(ctx, 'tasks', ctx.other.accountId, 'Other task'),
  };
}
