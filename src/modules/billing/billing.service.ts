import { isUniqueViolation } from '../../db/faults.js';
import type { Db } from '../../db/index.js';
import { transact } from '../../db/transact.js';
import type { AuthContext } from '../../plugins/auth.js';
import { AppError, type FieldError, notFound, validationFailed } from '../../shared/errors.js';
import { exactDecimal, fromCents } from '../../shared/money.js';
import { type Page, pageOf } from '../../shared/paging.js';
import { accountProfile } from '../account/profile.public.js';
import { claimOfferInvoice } from '../offers/offers.public.js';
import { getOffer } from '../offers/offers.service.js';
import { createInvoice, getInvoice } from '../outgoing-invoices/invoices.service.js';
import {
  findInvoice,
  type InvoiceCreate,
  invalidReference,
  invoiceTimesheet,
} from '../outgoing-invoices/outgoing-invoices.public.js';
import { createPartialPlan } from '../outgoing-invoices/plans.service.js';
import * as read from './billing.read-model.js';
import * as repo from './billing.repository.js';
import type {
  FromEffortsBody,
  Invoice,
  OfferInvoice,
  OfferInvoiceBody,
  ProjectReport,
  UninvoicedQuery,
  UninvoicedReport,
} from './billing.schemas.js';
import {
  amountOf,
  type BillLine,
  billLines,
  type GroupBy,
  hoursOf,
  type PricedEffort,
  type RateSource,
  resolveRate,
  taxTreatment,
} from './rates.domain.js';
import { type Figures, projectFigures, type ReportEffort } from './report.domain.js';

const MAX_LINES = 500;

const idList = (ids: readonly number[]) =>
  ids.length > 20 ? `${ids.slice(0, 20).join(', ')} … (${ids.length})` : ids.join(', ');

/** 409 naming the efforts another invoice bills already. */
function alreadyBilled(taken: { effort_id: number; invoice_id: number }[]): AppError {
  const ids = taken.map((t) => t.effort_id).sort((a, b) => a - b);
  return new AppError('effort_already_billed', `Efforts ${idList(ids)} stand on an invoice already`, {
    extra: {
      effort_ids: ids,
      invoice_ids: [...new Set(taken.map((t) => t.invoice_id))].sort((a, b) => a - b),
    },
  });
}

const rateLevels = (r: read.EffortRateRow, account: number | null) => ({
  effort: r.effort_rate,
  task: r.task_rate,
  team: r.team_rate,
  project: r.project_rate,
  user: r.user_rate,
  account,
});

const isBillable = (r: read.EffortRateRow) => Number(r.billable) === 1 && r.type !== 'admin';

async function accountRate(db: Db, accountId: number) {
  const account = await read.findAccountRow(db, accountId);
  // The company profile's reader: the account's default, the last step of the rate order.
  return { account, rate: accountProfile(account).default_hourly_rate };
}

/** The projects a from-efforts call bills, and the client its invoice goes to. */
async function scopeOf(db: Db, auth: AuthContext, body: FromEffortsBody) {
  if (body.project_id !== undefined) {
    const p = await read.findProject(db, auth.accountId, body.project_id);
    if (!p) throw invalidReference([{ field: 'project_id', message: 'no such project' }]);
    if (p.billing_mode === 'fixed_price') {
      const message = 'a fixed-price project is billed by its plan, not by its hours';
      throw new AppError('unprocessable', `Project ${p.id}: ${message}`, {
        errors: [{ field: 'project_id', message }],
      });
    }
    return { clientId: p.client_id, projects: [p] };
  }
  const clientId = body.client_id as number;
  const client = await read.findClient(db, auth.accountId, clientId);
  if (!client) throw invalidReference([{ field: 'client_id', message: 'no such client' }]);
  const projects = (await read.projectsOfClient(db, auth.accountId, clientId)).filter(
    (p) => p.billing_mode !== 'fixed_price',
  );
  return { clientId, projects };
}

/** The efforts a call names in `effort_ids`, each checked; 409 for those billed already. */
function checkNamed(
  body: FromEffortsBody,
  rows: read.EffortRateRow[],
  projectIds: Set<number>,
): read.EffortRateRow[] {
  const ids = body.effort_ids as number[];
  const found = new Map(rows.map((r) => [r.id, r]));
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length > 0)
    throw invalidReference([{ field: 'effort_ids', message: `no such effort: ${idList(missing)}` }]);
  const errors: FieldError[] = [];
  ids.forEach((id, i) => {
    const r = found.get(id)!;
    const why = !projectIds.has(r.project_id)
      ? 'not on a project billed here (or on a fixed-price project)'
      : r.date < body.date_from || r.date > body.date_to
        ? 'outside date_from … date_to'
        : !isBillable(r)
          ? r.type === 'admin'
            ? 'admin time is not billed'
            : 'not billable'
          : undefined;
    if (why) errors.push({ field: `effort_ids.${i}`, message: `effort ${id}: ${why}` });
  });
  if (errors.length > 0) throw validationFailed(errors);
  const taken = rows.filter((r) => r.invoice_id !== null);
  if (taken.length > 0)
    throw alreadyBilled(taken.map((r) => ({ effort_id: r.id, invoice_id: r.invoice_id! })));
  return ids.map((id) => found.get(id)!);
}

const nameOf = (u: { first_name: string; last_name: string } | undefined) =>
  u ? `${u.first_name} ${u.last_name}`.trim() : null;

/** Titles of the lines: what groups them, with the project when an invoice spans several. */
async function lineTexts(
  db: Db,
  accountId: number,
  lines: BillLine[],
  by: GroupBy,
  projects: read.BillingProject[],
) {
  const [users, tasks] = await Promise.all([
    read.usersByIds(db, accountId, [...new Set(lines.map((l) => l.first.user_id))]),
    read.tasksByIds(db, accountId, [
      ...new Set(lines.map((l) => l.first.task_id).filter((t): t is number => t !== null)),
    ]),
  ]);
  const user = new Map(users.map((u) => [u.id, nameOf(u)]));
  const task = new Map(tasks.map((t) => [t.id, t.name]));
  const project = new Map(projects.map((p) => [p.id, p.name]));
  const several = new Set(lines.map((l) => l.project_id)).size > 1;
  return lines.map((l) => {
    const e = l.first;
    const taskName = e.task_id === null ? null : (task.get(e.task_id) ?? null);
    let title: string;
    let description: string | null = null;
    switch (by) {
      case 'effort':
        title = e.description?.trim() || taskName || 'Work';
        description = [e.date, user.get(e.user_id)].filter(Boolean).join(', ');
        break;
      case 'task':
        title = taskName ?? 'Other work';
        break;
      case 'user':
        title = user.get(e.user_id) ?? `User ${e.user_id}`;
        break;
      case 'day':
        title = e.date;
        break;
      case 'none':
        title = project.get(l.project_id) ?? 'Work';
        break;
    }
    if (several && by !== 'none') title = `${project.get(l.project_id) ?? ''}: ${title}`;
    return { title: title.slice(0, 255), description };
  });
}

/**
 * POST /outgoing-invoices/from-efforts: an open invoice billing the scope's unbilled efforts,
 * each line linked to its efforts in the same transaction. UNIQUE (effort_id) decides between
 * concurrent calls: the loser's insert fails and it answers 409 naming the efforts.
 */
export async function invoiceFromEfforts(db: Db, auth: AuthContext, body: FromEffortsBody): Promise<Invoice> {
  const errors: FieldError[] = [];
  if ((body.project_id === undefined) === (body.client_id === undefined))
    errors.push({ field: 'project_id', message: 'give project_id or client_id (one of them)' });
  if (body.date_to < body.date_from)
    errors.push({ field: 'date_to', message: 'must not be before date_from' });
  const givenRate = body.tax_rate === undefined ? undefined : exactDecimal(body.tax_rate, 2);
  if (body.tax_rate !== undefined && givenRate === undefined)
    errors.push({ field: 'tax_rate', message: 'must have at most two decimals' });
  if (body.effort_ids && new Set(body.effort_ids).size !== body.effort_ids.length)
    errors.push({ field: 'effort_ids', message: 'names an effort twice' });
  if (errors.length > 0) throw validationFailed(errors);
  const by = body.group_by ?? 'task';
  const rounding = body.rounding_minutes ?? 1;
  const accountId = auth.accountId;

  const { clientId, projects } = await scopeOf(db, auth, body);
  const projectIds = new Set(projects.map((p) => p.id));
  const rows = body.effort_ids
    ? checkNamed(body, await read.effortsWithRates(db, accountId, { ids: body.effort_ids }), projectIds)
    : await read.effortsWithRates(db, accountId, {
        projectIds: [...projectIds],
        from: body.date_from,
        to: body.date_to,
        billableOnly: true,
        unbilledOnly: true,
      });
  if (rows.length === 0)
    throw new AppError('nothing_to_bill', 'No billable effort in this scope stands on no invoice yet');

  const { account, rate: accountDefault } = await accountRate(db, accountId);
  const priced: PricedEffort[] = [];
  const unrated: number[] = [];
  for (const r of rows) {
    const rate = resolveRate(rateLevels(r, accountDefault));
    if (!rate) unrated.push(r.id);
    else
      priced.push({
        id: r.id,
        project_id: r.project_id,
        task_id: r.task_id,
        user_id: r.user_id,
        date: r.date,
        description: r.description,
        minutes: r.duration_minutes,
        rate: rate.rate,
        source: rate.source,
      });
  }
  if (unrated.length > 0) {
    throw new AppError(
      'unprocessable',
      `No hourly rate for efforts ${idList(unrated)}: set one on the effort, task, team member, project or user, or the account's default_hourly_rate`,
      { extra: { effort_ids: unrated } },
    );
  }
  const lines = billLines(priced, by, rounding);
  if (lines.length > MAX_LINES)
    throw validationFailed([
      { field: 'group_by', message: `gives ${lines.length} lines, at most ${MAX_LINES}: group coarser` },
    ]);

  let tax: { tax_rate: string; tax_exemption_category: 'AE' | null };
  if (givenRate !== undefined) tax = { tax_rate: givenRate, tax_exemption_category: null };
  else {
    const client = await read.findClient(db, accountId, clientId);
    const treatment = taxTreatment(account.country_code, client ?? { country_code: null, vat_id: null });
    if (!treatment)
      throw validationFailed([
        { field: 'tax_rate', message: 'is required: no standard rate is known for the account’s country' },
      ]);
    tax = treatment;
  }
  const texts = await lineTexts(db, accountId, lines, by, projects);
  const billed = new Set(lines.map((l) => l.project_id));
  const only = billed.size === 1 ? projects.find((p) => billed.has(p.id)) : undefined;
  const invoiceBody: InvoiceCreate = {
    client_id: clientId,
    project_id: only?.id ?? null,
    title: body.title ?? `Services ${body.date_from} – ${body.date_to}`,
    date: body.date ?? null,
    service_period_start: body.date_from,
    service_period_end: body.date_to,
    ...(only?.currency ? { currency: only.currency } : {}),
    ...(tax.tax_exemption_category ? { tax_exemption_category: tax.tax_exemption_category } : {}),
    line_items: lines.map((l, i) => ({
      title: texts[i]!.title,
      description: texts[i]!.description,
      quantity: Number(l.hours),
      unit: 'h',
      unit_price: fromCents(l.rate),
      tax_rate: Number(tax.tax_rate),
    })),
  };
  const ids = priced.map((e) => e.id);
  try {
    return await transact(db, async (trx) => {
      // Serialized writers (SQLite) see a winner's links here; concurrent ones (PostgreSQL)
      // meet them at the unique key below.
      const taken = await repo.billedAmong(trx, accountId, ids);
      if (taken.length > 0) throw alreadyBilled(taken);
      const invoice = await createInvoice(trx, auth, invoiceBody);
      await repo.insertLinks(
        trx,
        lines.flatMap((l, i) =>
          l.efforts.map((e) => ({
            account_id: accountId,
            invoice_id: invoice.id,
            effort_id: e.id,
            position: i + 1,
            minutes: e.minutes,
            hourly_rate: e.rate,
            rate_source: e.source,
          })),
        ),
      );
      return invoice;
    });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    throw alreadyBilled(await repo.billedAmong(db, accountId, ids));
  }
}

export interface TimesheetEntry {
  effort_id: number;
  position: number;
  date: string;
  user_id: number;
  user_name: string | null;
  project_id: number | null;
  task_id: number | null;
  task_name: string | null;
  description: string | null;
  minutes_tracked: number;
  minutes_billed: number;
  hours: number;
  hourly_rate: number;
  rate_source: RateSource;
  amount: number;
}

/** Every effort an invoice bills, with its minutes, rate, where the rate came from and amount. */
export async function timesheetOf(db: Db, accountId: number, invoiceId: number): Promise<TimesheetEntry[]> {
  const rows = await invoiceTimesheet(db, accountId, invoiceId);
  return rows.map((r) => ({
    effort_id: r.effort_id,
    position: r.position,
    date: r.date,
    user_id: r.user_id,
    user_name:
      r.first_name === null ? null : nameOf({ first_name: r.first_name, last_name: r.last_name ?? '' }),
    project_id: r.project_id,
    task_id: r.task_id,
    task_name: r.task_name,
    description: r.description,
    minutes_tracked: r.duration_minutes,
    minutes_billed: r.minutes,
    hours: Number(hoursOf(r.minutes)),
    hourly_rate: fromCents(r.hourly_rate),
    rate_source: r.rate_source as RateSource,
    amount: fromCents(amountOf(r.minutes, r.hourly_rate)),
  }));
}

/** GET /outgoing-invoices/{id}/efforts, paged. */
export async function listInvoiceEfforts(
  db: Db,
  auth: AuthContext,
  id: number,
  q: { page?: number; per_page?: number },
): Promise<Page<TimesheetEntry>> {
  if (!(await findInvoice(db, auth.accountId, id))) throw notFound('Outgoing invoice');
  const all = await timesheetOf(db, auth.accountId, id);
  const { page, per_page } = pageOf(q);
  return { rows: all.slice((page - 1) * per_page, page * per_page), total: all.length, page, per_page };
}

/**
 * POST /offers/{id}/invoice: an accepted offer once as an open invoice (or a partial plan),
 * recorded on the offer with a conditional UPDATE in the same transaction.
 */
export async function invoiceFromOffer(
  db: Db,
  auth: AuthContext,
  body: OfferInvoiceBody,
  params: { id: number },
): Promise<OfferInvoice> {
  const offerId = params.id;
  const offer = await getOffer(db, auth, offerId);
  const already = (invoiceId: number | null) =>
    new AppError('offer_already_invoiced', `Offer ${offerId} has been invoiced already`, {
      extra: { invoice_id: invoiceId },
    });
  return transact(db, async (trx) => {
    const row = await read.findOffer(trx, auth.accountId, offerId);
    if (!row) throw notFound('Offer');
    if (row.invoice_id !== null) throw already(row.invoice_id);
    if (row.status !== 'accepted')
      throw new AppError(
        'offer_not_accepted',
        `Offer ${offerId} is ${row.status}: only an accepted offer is invoiced`,
      );
    const lines = offer.line_items.map((l) => ({
      title: l.title,
      description: l.description,
      quantity: l.quantity,
      unit: l.unit,
      unit_price: l.unit_price,
      tax_rate: l.tax_rate,
      discount: l.discount,
    }));
    const header = {
      contact_id: row.contact_id,
      project_id: row.project_id,
      currency: row.currency,
      ...(offer.title ? { title: offer.title } : {}),
      ...(offer.intro_text ? { intro_text: offer.intro_text } : {}),
      ...(offer.closing_text ? { closing_text: offer.closing_text } : {}),
    };
    let invoiceId: number;
    let masterId: number | null = null;
    if (body.as === 'partial_plan') {
      if (row.client_id === null)
        throw validationFailed([
          { field: 'as', message: 'a partial plan needs a client: the offer names none' },
        ]);
      if (lines.length === 0)
        throw validationFailed([
          { field: 'as', message: 'a partial plan needs positions: the offer has none' },
        ]);
      const master = await createPartialPlan(trx, auth, {
        ...header,
        client_id: row.client_id,
        line_items: lines,
      });
      masterId = master.id;
      invoiceId = master.final_invoice_id!;
    } else {
      invoiceId = (await createInvoice(trx, auth, { ...header, client_id: row.client_id, line_items: lines }))
        .id;
    }
    if (!(await claimOfferInvoice(trx, auth.accountId, offerId, masterId ?? invoiceId))) throw already(null);
    return {
      id: invoiceId,
      offer_id: offerId,
      master_id: masterId,
      invoice: await getInvoice(trx, auth, invoiceId),
    };
  });
}

const figuresToWire = (f: Figures) => ({
  minutes: { ...f.minutes },
  billable_value: fromCents(f.billable_value),
  billed_value: fromCents(f.billed_value),
  uninvoiced_value: fromCents(f.uninvoiced_value),
  cost: fromCents(f.cost),
});
const partToWire = (f: Figures) => ({ ...figuresToWire(f), margin: fromCents(f.billed_value - f.cost) });

/** Admin time counts where the token sees it (GET /efforts: efforts:extended:read). */
const seesAdmin = (auth: AuthContext) => auth.scopes.has('efforts:extended:read');

/** GET /projects/{id}/report. */
export async function projectReport(db: Db, auth: AuthContext, id: number): Promise<ProjectReport> {
  const accountId = auth.accountId;
  const p = await read.findProject(db, accountId, id);
  if (!p) throw notFound('Project');
  const admin = seesAdmin(auth);
  const [rows, { account, rate: accountDefault }, nets] = await Promise.all([
    read.effortsWithRates(db, accountId, { projectIds: [id], ordered: false }),
    accountRate(db, accountId),
    read.invoicedNets(db, accountId, [id]),
  ]);
  const efforts: ReportEffort[] = [];
  for (const r of rows) {
    if (!admin && r.type === 'admin') continue;
    efforts.push({
      user_id: r.user_id,
      task_id: r.task_id,
      date: r.date,
      minutes: r.duration_minutes,
      billable: isBillable(r),
      rate: resolveRate(rateLevels(r, accountDefault)),
      cost_rate: r.cost_rate,
      billed: r.invoice_id === null ? null : { minutes: r.billed_minutes!, rate: r.billed_rate! },
    });
  }
  const f = projectFigures(efforts);
  const userIds = [...f.by_user.keys()];
  const taskIds = [...f.by_task.keys()].filter((t): t is number => t !== null);
  const [users, tasks] = await Promise.all([
    read.usersByIds(db, accountId, userIds),
    read.tasksByIds(db, accountId, taskIds),
  ]);
  const userName = new Map(users.map((u) => [u.id, nameOf(u)]));
  const taskName = new Map(tasks.map((t) => [t.id, t.name]));
  const invoiced = nets.get(id) ?? { booked: 0, open: 0 };
  const invoicedTotal = invoiced.booked + invoiced.open;
  return {
    project_id: p.id,
    billing_mode: p.billing_mode,
    currency: p.currency ?? account.currency,
    includes_admin_efforts: admin,
    budget: {
      minutes: p.budget_minutes,
      amount: p.budget_amount === null ? null : fromCents(p.budget_amount),
      minutes_left: p.budget_minutes === null ? null : p.budget_minutes - f.totals.minutes.tracked,
      amount_left: p.budget_amount === null ? null : fromCents(p.budget_amount - invoicedTotal),
    },
    totals: {
      ...figuresToWire(f.totals),
      invoiced_net: {
        booked: fromCents(invoiced.booked),
        open: fromCents(invoiced.open),
        total: fromCents(invoicedTotal),
      },
      margin: fromCents(invoicedTotal - f.totals.cost),
    },
    by_user: [...f.by_user]
      .sort(([a], [b]) => a - b)
      .map(([userId, x]) => ({ user_id: userId, name: userName.get(userId) ?? null, ...partToWire(x) })),
    by_task: [...f.by_task]
      .sort(([a], [b]) => (a ?? 0) - (b ?? 0))
      .map(([taskId, x]) => ({
        task_id: taskId,
        name: taskId === null ? null : (taskName.get(taskId) ?? null),
        ...partToWire(x),
      })),
    by_month: [...f.by_month]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([month, x]) => ({ month, ...partToWire(x) })),
  };
}

/**
 * What is billable and on no invoice yet, in cents, per time-and-materials project, in the
 * currency its invoices get (the project's, else the client's, else the account's).
 */
export async function uninvoicedByProject(db: Db, accountId: number, q: UninvoicedQuery = {}) {
  const [rows, { account, rate: accountDefault }] = await Promise.all([
    read.effortsWithRates(db, accountId, {
      from: q.date_from,
      to: q.date_to,
      billableOnly: true,
      unbilledOnly: true,
      ordered: false,
    }),
    accountRate(db, accountId),
  ]);
  const byProject = new Map<number, { minutes: number; value: number }>();
  for (const r of rows) {
    const rate = resolveRate(rateLevels(r, accountDefault));
    const v = byProject.get(r.project_id) ?? { minutes: 0, value: 0 };
    byProject.set(r.project_id, v);
    v.minutes += r.duration_minutes;
    if (rate) v.value += amountOf(r.duration_minutes, rate.rate);
  }
  const projects = (await read.projectsByIds(db, accountId, [...byProject.keys()]))
    .filter((p) => p.billing_mode !== 'fixed_price')
    .sort((a, b) => a.id - b.id);
  const clients = await read.clientsByIds(db, accountId, [...new Set(projects.map((p) => p.client_id))]);
  const client = new Map(clients.map((c) => [c.id, c]));
  return projects.map((p) => ({
    project_id: p.id,
    name: p.name,
    client_id: p.client_id,
    client_name: client.get(p.client_id)?.name ?? null,
    currency: p.currency ?? client.get(p.client_id)?.currency ?? account.currency,
    ...byProject.get(p.id)!,
  }));
}

/** GET /reports/uninvoiced: per project, per client and in total, each per currency. */
export async function uninvoicedReport(
  db: Db,
  auth: AuthContext,
  q: UninvoicedQuery,
): Promise<UninvoicedReport> {
  if (q.date_from && q.date_to && q.date_to < q.date_from)
    throw validationFailed([{ field: 'date_to', message: 'must not be before date_from' }]);
  const projects = await uninvoicedByProject(db, auth.accountId, q);
  type Sum = { minutes: number; value: number };
  const byClient = new Map<string, Sum & { client_id: number; name: string | null; currency: string }>();
  const totals = new Map<string, Sum & { currency: string }>();
  for (const p of projects) {
    const key = `${p.client_id}/${p.currency}`;
    const c = byClient.get(key) ?? {
      client_id: p.client_id,
      name: p.client_name,
      currency: p.currency,
      minutes: 0,
      value: 0,
    };
    byClient.set(key, c);
    const t = totals.get(p.currency) ?? { currency: p.currency, minutes: 0, value: 0 };
    totals.set(p.currency, t);
    for (const sum of [c, t]) {
      sum.minutes += p.minutes;
      sum.value += p.value;
    }
  }
  return {
    projects: projects.map((p) => ({ ...p, value: fromCents(p.value) })),
    clients: [...byClient.values()]
      .sort((a, b) => a.client_id - b.client_id || (a.currency < b.currency ? -1 : 1))
      .map((c) => ({ ...c, value: fromCents(c.value) })),
    totals: [...totals.values()]
      .sort((a, b) => (a.currency < b.currency ? -1 : 1))
      .map((t) => ({ ...t, value: fromCents(t.value) })),
  };
}
