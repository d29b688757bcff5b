import { type ExpressionBuilder, sql } from 'kysely';
import type { Db } from '../../db/index.js';
import type { Database } from '../../db/schema.js';

/**
 * What billing reads from tables other modules own: efforts with every level of the rate order
 * (tasks, team members, projects, user rates), the project and client an invoice is made for,
 * offers and the nets of invoices. A read model because pricing an effort needs all of them in
 * one query (a project's report reads 100,000 efforts in one statement, not per row through
 * five front doors). Reads only: billing writes its own table (invoice_efforts) alone, and
 * everything else through the owning module's front door.
 */

export async function findAccountRow(db: Db, accountId: number) {
  return db
    .selectFrom('accounts')
    .select(['name', 'country_code', 'settings', 'currency'])
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
}

const PROJECT_COLUMNS = [
  'id',
  'client_id',
  'name',
  'billing_mode',
  'hourly_rate',
  'budget_minutes',
  'budget_amount',
  'currency',
] as const;

export type BillingProject = Awaited<ReturnType<typeof findProject>> & {};

export function findProject(db: Db, accountId: number, id: number) {
  return db
    .selectFrom('projects')
    .select(PROJECT_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function projectsOfClient(db: Db, accountId: number, clientId: number) {
  return db
    .selectFrom('projects')
    .select(PROJECT_COLUMNS)
    .where('account_id', '=', accountId)
    .where('client_id', '=', clientId)
    .orderBy('id')
    .execute();
}

export function projectsByIds(db: Db, accountId: number, ids: number[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('projects')
    .select(PROJECT_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .execute();
}

export function findClient(db: Db, accountId: number, id: number) {
  return db
    .selectFrom('clients')
    .select(['id', 'name', 'country_code', 'vat_id'])
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function clientsByIds(db: Db, accountId: number, ids: number[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('clients')
    .select(['id', 'name', 'currency'])
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .execute();
}

export function usersByIds(db: Db, accountId: number, ids: number[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('users')
    .select(['id', 'first_name', 'last_name'])
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .execute();
}

export function tasksByIds(db: Db, accountId: number, ids: number[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('tasks')
    .select(['id', 'name'])
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .execute();
}

/** An effort with the rate of every level of the rate order, its user's cost rate and its link. */
export interface EffortRateRow {
  id: number;
  project_id: number;
  task_id: number | null;
  user_id: number;
  date: string;
  duration_minutes: number;
  billable: number;
  type: string;
  description: string | null;
  effort_rate: number | null;
  task_rate: number | null;
  team_rate: number | null;
  project_rate: number | null;
  user_rate: number | null;
  cost_rate: number | null;
  /** The invoice it stands on (a non-deleted one: links of deleted invoices are gone). */
  invoice_id: number | null;
  billed_minutes: number | null;
  billed_rate: number | null;
}

export interface EffortFilter {
  projectIds?: number[];
  ids?: number[];
  from?: string;
  to?: string;
  /** Only billable, non-admin efforts. */
  billableOnly?: boolean;
  /** Only efforts on no invoice. */
  unbilledOnly?: boolean;
  /** By date, then id (an invoice's lines); a report adds them up in any order. */
  ordered?: boolean;
}

/**
 * Efforts of the account with what prices them (by date then id unless `ordered: false`).
 * Two steps rather than one five-way join: the efforts alone, then the few rows that set a
 * rate (tasks, team members, projects with one; every user rate) and the links of the billed
 * ones, matched here. A report of 100,000 efforts reads them a third faster so.
 */
export async function effortsWithRates(db: Db, accountId: number, f: EffortFilter): Promise<EffortRateRow[]> {
  let q = db
    .selectFrom('efforts as e')
    .select([
      'e.id',
      'e.project_id',
      'e.task_id',
      'e.user_id',
      'e.date',
      'e.duration_minutes',
      'e.billable',
      'e.type',
      'e.description',
      'e.hourly_rate',
    ])
    .where('e.account_id', '=', accountId)
    .where('e.project_id', 'is not', null);
  if (f.projectIds) q = q.where('e.project_id', 'in', f.projectIds.length ? f.projectIds : [0]);
  if (f.ids) q = q.where('e.id', 'in', f.ids.length ? f.ids : [0]);
  if (f.from) q = q.where('e.date', '>=', f.from);
  if (f.to) q = q.where('e.date', '<=', f.to);
  if (f.billableOnly) q = q.where('e.billable', '=', 1).where('e.type', '!=', 'admin');
  if (f.unbilledOnly)
    q = q.where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('invoice_efforts as ie').select('ie.id').whereRef('ie.effort_id', '=', 'e.id'))),
    );
  if (f.ordered !== false) q = q.orderBy('e.date').orderBy('e.id');
  const efforts = await q.execute();
  if (efforts.length === 0) return [];
  const projectIds = f.projectIds ?? [...new Set(efforts.map((e) => e.project_id!))];
  const [tasks, members, projects, users, links] = await Promise.all([
    db
      .selectFrom('tasks')
      .select(['id', 'hourly_rate'])
      .where('account_id', '=', accountId)
      .where('project_id', 'in', projectIds)
      .where('hourly_rate', 'is not', null)
      .execute(),
    db
      .selectFrom('project_members')
      .select(['project_id', 'user_id', 'hourly_rate'])
      .where('project_id', 'in', projectIds)
      .where('hourly_rate', 'is not', null)
      .execute(),
    db
      .selectFrom('projects')
      .select(['id', 'hourly_rate'])
      .where('account_id', '=', accountId)
      .where('id', 'in', projectIds)
      .execute(),
    db
      .selectFrom('user_rates')
      .select(['user_id', 'hourly_rate', 'cost_rate'])
      .where('account_id', '=', accountId)
      .execute(),
    f.unbilledOnly
      ? Promise.resolve([])
      : db
          .selectFrom('invoice_efforts as ie')
          .innerJoin('efforts as e', 'e.id', 'ie.effort_id')
          .select(['ie.effort_id', 'ie.invoice_id', 'ie.minutes', 'ie.hourly_rate'])
          .where('ie.account_id', '=', accountId)
          .where('e.project_id', 'in', projectIds)
          .execute(),
  ]);
  const taskRate = new Map(tasks.map((t) => [t.id, t.hourly_rate]));
  const teamRate = new Map(members.map((m) => [`${m.project_id}/${m.user_id}`, m.hourly_rate]));
  const projectRate = new Map(projects.map((p) => [p.id, p.hourly_rate]));
  const userRate = new Map(users.map((u) => [u.user_id, u]));
  const link = new Map(links.map((l) => [l.effort_id, l]));
  return efforts.map((e) => {
    const l = link.get(e.id);
    const u = userRate.get(e.user_id);
    return {
      id: e.id,
      project_id: e.project_id!,
      task_id: e.task_id,
      user_id: e.user_id,
      date: e.date,
      duration_minutes: e.duration_minutes,
      billable: e.billable,
      type: e.type,
      description: e.description,
      effort_rate: e.hourly_rate,
      task_rate: e.task_id === null ? null : (taskRate.get(e.task_id) ?? null),
      team_rate: teamRate.get(`${e.project_id}/${e.user_id}`) ?? null,
      project_rate: projectRate.get(e.project_id!) ?? null,
      user_rate: u?.hourly_rate ?? null,
      cost_rate: u?.cost_rate ?? null,
      invoice_id: l?.invoice_id ?? null,
      billed_minutes: l?.minutes ?? null,
      billed_rate: l?.hourly_rate ?? null,
    };
  });
}

/** The offer as invoicing it needs: its status and whether an invoice was made from it. */
export function findOffer(db: Db, accountId: number, id: number) {
  return db
    .selectFrom('offers')
    .select(['id', 'status', 'invoice_id', 'client_id', 'contact_id', 'project_id', 'title', 'currency'])
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

const documentTypes = ['invoice', 'credit', 'deposit', 'partial', 'final'];

const live = (eb: ExpressionBuilder<Database, 'outgoing_invoices'>) =>
  eb.and([eb('deleted_at', 'is', null), eb('type', 'in', documentTypes)]);

/**
 * The nets invoiced to projects (cents), booked and open apart: documents naming the project,
 * plus, on documents naming no project (from-efforts over a client's projects), the lines its
 * efforts stand on.
 */
export async function invoicedNets(db: Db, accountId: number, projectIds: number[]) {
  const out = new Map<number, { booked: number; open: number }>();
  if (projectIds.length === 0) return out;
  const at = (id: number) => {
    const v = out.get(id) ?? { booked: 0, open: 0 };
    out.set(id, v);
    return v;
  };
  const own = await db
    .selectFrom('outgoing_invoices')
    .select((eb) => [
      'project_id',
      sql<number>`case when status = 'booked' then 1 else 0 end`.as('booked'),
      eb.fn
        .sum<string | number>(
          sql`coalesce(lines_net, (select sum(it.net_total) from outgoing_invoice_items it where it.invoice_id = outgoing_invoices.id))`,
        )
        .as('net'),
    ])
    .where('account_id', '=', accountId)
    .where('project_id', 'in', projectIds)
    .where(live)
    .groupBy(['project_id', sql`case when status = 'booked' then 1 else 0 end`])
    .execute();
  for (const r of own) at(r.project_id!)[Number(r.booked) ? 'booked' : 'open'] += Number(r.net);
  const shared = await db
    .selectFrom('invoice_efforts as ie')
    .innerJoin('efforts as e', 'e.id', 'ie.effort_id')
    .innerJoin('outgoing_invoices as i', 'i.id', 'ie.invoice_id')
    .innerJoin('outgoing_invoice_items as it', (j) =>
      j.onRef('it.invoice_id', '=', 'ie.invoice_id').onRef('it.position', '=', 'ie.position'),
    )
    .select(['e.project_id', 'i.status', 'ie.invoice_id', 'ie.position', 'it.net_total'])
    .distinct()
    .where('ie.account_id', '=', accountId)
    .where('e.project_id', 'in', projectIds)
    .where('i.project_id', 'is', null)
    .where('i.deleted_at', 'is', null)
    .execute();
  for (const r of shared) at(r.project_id!)[r.status === 'booked' ? 'booked' : 'open'] += Number(r.net_total);
  return out;
}
