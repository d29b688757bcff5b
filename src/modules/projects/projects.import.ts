import { Type } from 'typebox';
import type { ImportContext, ImportSection } from '../../import/context.js';
import { DateString, Email } from '../../shared/schemas.js';
import { validateCustomFields } from '../custom-fields/custom-fields.service.js';
import { clientRef, importError, userRef, withPath } from './import-refs.js';
import { EpicStatus, ProjectStatus } from './projects.schemas.js';

const Key = Type.String({ minLength: 1, description: 'Reference used by later records of the file' });
const Name = Type.String({ minLength: 1 });
const Str = Type.Optional(Type.String());
const Day = Type.Optional(DateString);

const PortfolioItem = Type.Object(
  { key: Type.Optional(Key), name: Name, description: Str, archived: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);

const ProjectGroupItem = Type.Object(
  { key: Type.Optional(Key), name: Name, description: Str },
  { additionalProperties: false },
);

const ProjectItem = Type.Object(
  {
    key: Type.Optional(Key),
    client: Type.String({ description: 'Key of a client in the file, or shortcode of an existing client' }),
    portfolio: Type.Optional(Type.String({ description: 'Key of a portfolio' })),
    project_groups: Type.Optional(Type.Array(Type.String(), { description: 'Keys of project groups' })),
    identifier: Str,
    name: Name,
    description: Str,
    status: Type.Optional(ProjectStatus),
    billable: Type.Optional(Type.Boolean()),
    start_date: Day,
    end_date: Day,
    budget_minutes: Type.Optional(Type.Integer({ minimum: 0 })),
    custom_fields: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    archived: Type.Optional(Type.Boolean()),
    team: Type.Optional(
      Type.Array(
        Type.Object(
          {
            user: Type.String({ description: 'Key of a user in the file, or e-mail of an existing user' }),
            role: Type.Optional(Type.String({ minLength: 1 })),
          },
          { additionalProperties: false },
        ),
      ),
    ),
    guests: Type.Optional(
      Type.Array(
        Type.Object(
          {
            name: Name,
            email: Type.Optional(Email),
            contact_id: Type.Optional(Type.Integer({ minimum: 1 })),
          },
          { additionalProperties: false },
        ),
      ),
    ),
    phases: Type.Optional(
      Type.Array(
        Type.Object(
          { key: Type.Optional(Key), name: Name, description: Str, start_date: Day, end_date: Day },
          { additionalProperties: false },
        ),
      ),
    ),
    milestones: Type.Optional(
      Type.Array(
        Type.Object(
          {
            key: Type.Optional(Key),
            name: Name,
            description: Str,
            due_date: Day,
            completed: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
      ),
    ),
    epics: Type.Optional(
      Type.Array(
        Type.Object(
          {
            key: Type.Optional(Key),
            name: Name,
            description: Str,
            status: Type.Optional(EpicStatus),
            start_date: Day,
            end_date: Day,
          },
          { additionalProperties: false },
        ),
      ),
    ),
  },
  { additionalProperties: false },
);

interface Named {
  key?: string;
  name: string;
  description?: string;
}
interface ProjectItem extends Named {
  client: string;
  portfolio?: string;
  project_groups?: string[];
  identifier?: string;
  status?: string;
  billable?: boolean;
  start_date?: string;
  end_date?: string;
  budget_minutes?: number;
  custom_fields?: Record<string, unknown>;
  archived?: boolean;
  team?: { user: string; role?: string }[];
  guests?: { name: string; email?: string; contact_id?: number }[];
  phases?: (Named & { start_date?: string; end_date?: string })[];
  milestones?: (Named & { due_date?: string; completed?: boolean })[];
  epics?: (Named & { status?: string; start_date?: string; end_date?: string })[];
}

export const portfoliosSection: ImportSection = {
  key: 'portfolios',
  item: PortfolioItem,
  description: 'Portfolios (groupings of projects). `archived: true` imports them archived.',
  async run(ctx, items) {
    const now = new Date().toISOString();
    for (const p of items as (Named & { archived?: boolean })[]) {
      const row = await ctx.trx
        .insertInto('portfolios')
        .values({
          account_id: ctx.accountId,
          name: p.name,
          description: p.description ?? null,
          archived_at: p.archived ? now : null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      ctx.remember('portfolios', p.key, row.id);
    }
  },
};

export const projectGroupsSection: ImportSection = {
  key: 'project_groups',
  item: ProjectGroupItem,
  description: 'Project groups; projects name the groups they belong to.',
  async run(ctx, items) {
    for (const g of items as Named[]) {
      const row = await ctx.trx
        .insertInto('project_groups')
        .values({ account_id: ctx.accountId, name: g.name, description: g.description ?? null })
        .returning('id')
        .executeTakeFirstOrThrow();
      ctx.remember('project_groups', g.key, row.id);
    }
  },
};

async function importProject(ctx: ImportContext, p: ProjectItem, at: string): Promise<void> {
  const { trx, accountId } = ctx;
  if (p.start_date && p.end_date && p.end_date < p.start_date)
    throw importError([{ field: `${at}.end_date`, message: 'must not be before start_date' }]);
  const custom = await withPath(at, () =>
    validateCustomFields(trx, accountId, 'project', p.custom_fields ?? {}),
  );
  const now = new Date().toISOString();
  const project = await trx
    .insertInto('projects')
    .values({
      account_id: accountId,
      client_id: await clientRef(ctx, p.client, `${at}.client`),
      portfolio_id: ctx.optionalRef('portfolios', p.portfolio, `${at}.portfolio`),
      identifier: p.identifier ?? null,
      name: p.name,
      description: p.description ?? null,
      status: p.status ?? 'active',
      billable: p.billable === false ? 0 : 1,
      start_date: p.start_date ?? null,
      end_date: p.end_date ?? null,
      budget_minutes: p.budget_minutes ?? null,
      custom_fields: JSON.stringify(custom),
      archived_at: p.archived ? now : null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const project_id = project.id;
  ctx.remember('projects', p.key, project_id);
  for (const g of p.project_groups ?? []) {
    const groupId = ctx.ref('project_groups', g, `${at}.project_groups`);
    await trx
      .insertInto('project_group_projects')
      .values({ project_group_id: groupId, project_id })
      .execute();
  }
  for (const [j, m] of (p.team ?? []).entries()) {
    const user_id = await userRef(ctx, m.user, `${at}.team.${j}.user`);
    await trx
      .insertInto('project_members')
      .values({ project_id, user_id, role: m.role ?? 'member' })
      .execute();
  }
  for (const g of p.guests ?? []) {
    await trx
      .insertInto('project_guests')
      .values({
        account_id: accountId,
        project_id,
        name: g.name,
        email: g.email ?? null,
        contact_id: g.contact_id ?? null,
      })
      .execute();
  }
  const base = { account_id: accountId, project_id };
  for (const [j, ph] of (p.phases ?? []).entries()) {
    const row = await trx
      .insertInto('project_phases')
      .values({
        ...base,
        name: ph.name,
        description: ph.description ?? null,
        position: j,
        start_date: ph.start_date ?? null,
        end_date: ph.end_date ?? null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    ctx.remember('phases', ph.key, row.id);
  }
  for (const m of p.milestones ?? []) {
    const row = await trx
      .insertInto('project_milestones')
      .values({
        ...base,
        name: m.name,
        description: m.description ?? null,
        due_date: m.due_date ?? null,
        completed_at: m.completed ? now : null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    ctx.remember('milestones', m.key, row.id);
  }
  for (const e of p.epics ?? []) {
    const row = await trx
      .insertInto('project_epics')
      .values({
        ...base,
        name: e.name,
        description: e.description ?? null,
        status: e.status ?? 'open',
        start_date: e.start_date ?? null,
        end_date: e.end_date ?? null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    ctx.remember('epics', e.key, row.id);
  }
}

export const projectsSection: ImportSection = {
  key: 'projects',
  item: ProjectItem,
  description:
    'Projects of clients, with their team (user keys and roles), guests, phases, milestones and epics (keys usable by tasks) and custom field values.',
  async run(ctx, items) {
    for (const [i, p] of (items as ProjectItem[]).entries()) await importProject(ctx, p, `projects.${i}`);
  },
};
