import { type TProperties, Type } from 'typebox';
import { type ImportContext, ImportKey, type ImportSection } from '../../import/context.js';
import { validationFailed } from '../../shared/errors.js';
import { keyedSection } from '../../shared/keyed-section.js';
import { DateString, Email } from '../../shared/schemas.js';
import { validateImportedCustomFields } from '../custom-fields/custom-fields.public.js';
import { userRef } from '../users/users.public.js';
import { clientIdByShortcode } from './import.read-model.js';
import { insertLink, insertRow } from './projects.repository.js';
import { EpicStatus, ProjectStatus } from './projects.schemas.js';

const Name = Type.String({ minLength: 1 });
const Str = Type.Optional(Type.String());
const Day = Type.Optional(DateString);

/** Objects of exactly these fields, and an optional list of them (the parts of a project). */
const Strict = (props: TProperties) => Type.Object(props, { additionalProperties: false });
const ListOf = (props: TProperties) => Type.Optional(Type.Array(Strict(props)));
/** What every named record of the file has: a key for later records, a name, a description. */
const keyed = { key: Type.Optional(ImportKey), name: Name, description: Str };

const PortfolioItem = Strict({ ...keyed, archived: Type.Optional(Type.Boolean()) });

const ProjectGroupItem = Strict(keyed);

const ProjectItem = Strict({
  key: Type.Optional(ImportKey),
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
  team: ListOf({
    user: Type.String({ description: 'Key of a user in the file, or e-mail of an existing user' }),
    role: Type.Optional(Type.String({ minLength: 1 })),
  }),
  guests: ListOf({
    name: Name,
    email: Type.Optional(Email),
    contact_id: Type.Optional(Type.Integer({ minimum: 1 })),
  }),
  phases: ListOf({ ...keyed, start_date: Day, end_date: Day }),
  milestones: ListOf({ ...keyed, due_date: Day, completed: Type.Optional(Type.Boolean()) }),
  epics: ListOf({ ...keyed, status: Type.Optional(EpicStatus), start_date: Day, end_date: Day }),
});

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

/** A client: the key of a client earlier in the file, or the shortcode of an existing client. */
async function clientRef(ctx: ImportContext, ref: string, where: string): Promise<number> {
  try {
    return ctx.ref('clients', ref, where);
  } catch (err) {
    const id = await clientIdByShortcode(ctx.trx, ctx.accountId, ref);
    if (id !== undefined) return id;
    throw err;
  }
}

export const portfoliosSection: ImportSection = keyedSection<ImportContext, Named & { archived?: boolean }>({
  key: 'portfolios',
  item: PortfolioItem,
  description: 'Portfolios (groupings of projects). `archived: true` imports them archived.',
  async insert(ctx, p) {
    const id = await insertRow(ctx.trx, 'portfolios', {
      account_id: ctx.accountId,
      name: p.name,
      description: p.description ?? null,
      archived_at: p.archived ? new Date().toISOString() : null,
    });
    return { key: p.key, id };
  },
});

export const projectGroupsSection: ImportSection = keyedSection<ImportContext, Named>({
  key: 'project_groups',
  item: ProjectGroupItem,
  description: 'Project groups; projects name the groups they belong to.',
  async insert(ctx, g) {
    const values = { account_id: ctx.accountId, name: g.name, description: g.description ?? null };
    return { key: g.key, id: await insertRow(ctx.trx, 'project_groups', values) };
  },
});

async function importProject(ctx: ImportContext, p: ProjectItem, at: string): Promise<void> {
  const { trx, accountId } = ctx;
  if (p.start_date && p.end_date && p.end_date < p.start_date)
    throw validationFailed([{ field: `${at}.end_date`, message: 'must not be before start_date' }]);
  const custom = await validateImportedCustomFields(trx, accountId, 'project', p.custom_fields, at);
  const now = new Date().toISOString();
  const project_id = await insertRow(trx, 'projects', {
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
  });
  ctx.remember('projects', p.key, project_id);
  for (const g of p.project_groups ?? []) {
    const groupId = ctx.ref('project_groups', g, `${at}.project_groups`);
    await insertLink(trx, 'project_group_projects', { project_group_id: groupId, project_id });
  }
  for (const [j, m] of (p.team ?? []).entries()) {
    const user_id = await userRef(ctx, m.user, `${at}.team.${j}.user`);
    await insertLink(trx, 'project_members', { project_id, user_id, role: m.role ?? 'member' });
  }
  for (const g of p.guests ?? []) {
    await insertLink(trx, 'project_guests', {
      account_id: accountId,
      project_id,
      name: g.name,
      email: g.email ?? null,
      contact_id: g.contact_id ?? null,
    });
  }
  const base = { account_id: accountId, project_id };
  const named = (n: Named) => ({ ...base, name: n.name, description: n.description ?? null });
  for (const [j, ph] of (p.phases ?? []).entries()) {
    const values = {
      ...named(ph),
      position: j,
      start_date: ph.start_date ?? null,
      end_date: ph.end_date ?? null,
    };
    ctx.remember('phases', ph.key, await insertRow(trx, 'project_phases', values));
  }
  for (const m of p.milestones ?? []) {
    const values = { ...named(m), due_date: m.due_date ?? null, completed_at: m.completed ? now : null };
    ctx.remember('milestones', m.key, await insertRow(trx, 'project_milestones', values));
  }
  for (const e of p.epics ?? []) {
    const values = {
      ...named(e),
      status: e.status ?? 'open',
      start_date: e.start_date ?? null,
      end_date: e.end_date ?? null,
    };
    ctx.remember('epics', e.key, await insertRow(trx, 'project_epics', values));
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
