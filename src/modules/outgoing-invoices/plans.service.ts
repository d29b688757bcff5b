import type { Db } from '../../db/index.js';
import { transact } from '../../db/transact.js';
import type { AuthContext } from '../../plugins/auth.js';
import { AppError, notFound, validationFailed } from '../../shared/errors.js';
import { toCents } from '../../shared/money.js';
import { nowIso, todayIso } from '../../shared/time.js';
import { bookInvoice } from './booking.service.js';
import { intervalMonths, isRecurring, lumpSumLines, type Period, planSchedule } from './invoices.domain.js';
import type { InvoiceRow } from './invoices.repository.js';
import * as repo from './invoices.repository.js';
import type {
  Invoice,
  Master,
  PartialPlanCreate,
  PlanInvoiceCreate,
  RecurringPlanCreate,
} from './invoices.schemas.js';
import { recordInvoiceEvent } from './invoices.service.js';
import { assertWithinPlan, checkDates, checkReferences, documentDefaults } from './invoices.support.js';
import { loadMasters, loadView, planHeader, toInvoice } from './invoices.views.js';
import { type ParsedLine, parseLineItems } from './line-items.js';
import { autoSettings, duePeriods, firstState, type RunState, sendRefusal } from './plans.domain.js';
import * as runs from './plans.repository.js';

const masterView = async (db: Db, auth: AuthContext, row: InvoiceRow): Promise<Master> =>
  (await loadMasters(db, auth.accountId, [row]))[0]!;

/** Header fields a plan passes on to its invoices. */
const inherited = (m: InvoiceRow) => ({
  account_id: m.account_id,
  master_id: m.id,
  ...planHeader(m),
  intro_text: m.intro_text,
  closing_text: m.closing_text,
  // What makes each child legally complete the way the plan is (Leitweg-ID, 0 % reason).
  buyer_reference: m.buyer_reference,
  tax_exemption_category: m.tax_exemption_category,
  tax_exemption_reason_code: m.tax_exemption_reason_code,
  tax_exemption_reason: m.tax_exemption_reason,
});

export async function createRecurringPlan(
  db: Db,
  auth: AuthContext,
  body: RecurringPlanCreate,
): Promise<Master> {
  const lines = parseLineItems(body.line_items);
  checkDates(body);
  planSchedule(body.plan_start, body.plan_end, intervalMonths(body.type));
  const auto = autoSettings(null, body, todayIso());
  if (auto.errors.length > 0) throw validationFailed(auto.errors);
  const row = await transact(db, async (trx) => {
    const client = await checkReferences(trx, auth.accountId, body);
    const { row: master } = await repo.insertWithLines(
      trx,
      {
        account_id: auth.accountId,
        type: body.type,
        status: 'open',
        client_id: body.client_id,
        contact_id: body.contact_id ?? null,
        project_id: body.project_id ?? null,
        title: body.title ?? null,
        plan_start: body.plan_start,
        plan_end: body.plan_end,
        intro_text: body.intro_text ?? null,
        closing_text: body.closing_text ?? null,
        ...auto.values,
        ...documentDefaults(body, client),
      },
      lines,
    );
    return master;
  });
  return masterView(db, auth, row);
}

async function lockMaster(trx: Db, auth: AuthContext, id: number, kind: 'recurring' | 'partial') {
  const master = await repo.findInvoice(trx, auth.accountId, id, true);
  if (!master) throw notFound('Invoice master plan');
  const ok = kind === 'recurring' ? isRecurring(master.type) : master.type === 'partial_plan';
  if (!ok) {
    throw new AppError(
      'unprocessable',
      kind === 'recurring'
        ? `Outgoing invoice ${id} is not a recurring plan`
        : `Outgoing invoice ${id} is not a partial plan`,
    );
  }
  return master;
}

/** The lines of a recurring master, as its children get them. */
async function masterLines(trx: Db, accountId: number, master: InvoiceRow): Promise<ParsedLine[]> {
  return (await repo.itemsOf(trx, accountId, [master.id])).map(
    ({ title, description, quantity, unit, unit_price, tax_rate, discount, net_total }) => ({
      title,
      description,
      quantity,
      unit,
      unit_price: Number(unit_price),
      tax_rate,
      discount,
      net_total: Number(net_total),
    }),
  );
}

/** A child's header for a period: the plan's, dated on the period's first day. */
const childFields = (master: InvoiceRow, p: Period, now: string) => ({
  ...inherited(master),
  date: p.start,
  service_period_start: p.start,
  service_period_end: p.end,
  updated_at: now,
});

/**
 * One open child per interval of the plan span. Children still `open` are brought up to the
 * master's current lines and header; bookable and booked ones are left alone, and a period
 * that has (or had: deleted) a child never gets a second one. Open children whose period fell
 * out of a shortened span are deleted.
 */
export async function generateChildren(db: Db, auth: AuthContext, id: number): Promise<Master> {
  const master = await transact(db, async (trx) => {
    const master = await lockMaster(trx, auth, id, 'recurring');
    const periods = planSchedule(
      master.plan_start!,
      master.plan_end!,
      intervalMonths(master.type as 'recurring1'),
    );
    const lines = await masterLines(trx, auth.accountId, master);
    const children = await repo.childrenOf(trx, auth.accountId, [master.id], true);
    const byStart = new Map(children.map((c) => [c.service_period_start, c]));
    const wanted = new Set(periods.map((p) => p.start));
    const now = nowIso();
    for (const p of periods) {
      const fields = childFields(master, p, now);
      const existing = byStart.get(p.start);
      if (!existing) {
        const { row } = await repo.insertWithLines(
          trx,
          { ...fields, type: 'invoice', status: 'open' },
          lines,
        );
        await recordInvoiceEvent(trx, auth, 'invoice:created', row);
      } else if (existing.deleted_at === null && existing.status === 'open') {
        // The lines' totals in the row's one UPDATE (one change-log entry).
        await repo.updateInvoice(trx, auth.accountId, existing.id, {
          ...fields,
          ...repo.lineTotalsColumns(lines),
        });
        await repo.replaceLines(trx, auth.accountId, existing.id, lines);
      }
    }
    for (const c of children) {
      if (c.deleted_at === null && c.status === 'open' && !wanted.has(c.service_period_start ?? '')) {
        await repo.updateInvoice(trx, auth.accountId, c.id, { deleted_at: now, updated_at: now });
      }
    }
    return repo.updateInvoice(trx, auth.accountId, master.id, { updated_at: now });
  });
  return masterView(db, auth, master);
}

/** The master and its final invoice, which carries the plan's positions, in one transaction. */
export async function createPartialPlan(db: Db, auth: AuthContext, body: PartialPlanCreate): Promise<Master> {
  const lines = parseLineItems(body.line_items);
  checkDates(body);
  const master = await transact(db, async (trx) => {
    const client = await checkReferences(trx, auth.accountId, body);
    const master = await repo.insertInvoice(trx, {
      account_id: auth.accountId,
      type: 'partial_plan',
      status: 'open',
      client_id: body.client_id,
      contact_id: body.contact_id ?? null,
      project_id: body.project_id ?? null,
      title: body.title ?? null,
      intro_text: body.intro_text ?? null,
      closing_text: body.closing_text ?? null,
      ...documentDefaults(body, client),
    });
    const { row: final } = await repo.insertWithLines(
      trx,
      {
        ...inherited(master),
        type: 'final',
        status: 'open',
        date: body.date ?? null,
        due_date: body.due_date ?? null,
        service_period_start: body.service_period_start ?? null,
        service_period_end: body.service_period_end ?? null,
      },
      lines,
    );
    await recordInvoiceEvent(trx, auth, 'invoice:created', final);
    return master;
  });
  return masterView(db, auth, master);
}

const DEFAULT_TITLES = { deposit: 'Deposit', partial: 'Partial invoice', credit: 'Credit' } as const;

/**
 * Adds a deposit, partial or credit invoice to a partial plan. A lump-sum `value` (net) is
 * split over the plan's tax rates; a credit credits it (negative lines). The plan never
 * invoices more than its total, and a plan whose final invoice is booked is closed.
 */
export async function addPlanInvoice(
  db: Db,
  auth: AuthContext,
  id: number,
  body: PlanInvoiceCreate,
): Promise<Invoice> {
  if (body.type !== 'partial' && body.line_items !== undefined)
    throw validationFailed([{ field: 'line_items', message: 'only partial invoices take line items' }]);
  if (body.value === undefined && (body.type !== 'partial' || !body.line_items?.length)) {
    throw validationFailed([
      {
        field: 'value',
        message: body.type === 'partial' ? 'a value or line items are required' : 'is required',
      },
    ]);
  }
  const lines = parseLineItems(body.line_items ?? []);
  let cents: number | undefined;
  if (body.value !== undefined) {
    cents = toCents(body.value);
    if (cents === undefined)
      throw validationFailed([{ field: 'value', message: 'must have at most two decimals' }]);
    if (cents <= 0) throw validationFailed([{ field: 'value', message: 'must be greater than zero' }]);
  }
  checkDates(body);
  const row = await transact(db, async (trx) => {
    const master = await lockMaster(trx, auth, id, 'partial');
    const children = await repo.childrenOf(trx, auth.accountId, [master.id]);
    if (children.some((c) => c.type === 'final' && c.status === 'booked')) {
      throw new AppError('conflict', 'The final invoice of this plan is booked: the plan is closed');
    }
    const plan = await assertWithinPlan(trx, auth.accountId, master.id, 'value');
    const title = body.title ?? DEFAULT_TITLES[body.type];
    if (cents !== undefined) {
      const lump = lumpSumLines(title, body.type === 'credit' ? -cents : cents, plan);
      lines.push(...lump);
    }
    const { row: child } = await repo.insertWithLines(
      trx,
      {
        ...inherited(master),
        type: body.type,
        status: body.status ?? 'open',
        title,
        intro_text: body.intro_text ?? master.intro_text,
        closing_text: body.closing_text ?? master.closing_text,
        date: body.date ?? null,
        due_date: body.due_date ?? null,
        service_period_start: body.service_period_start ?? null,
        service_period_end: body.service_period_end ?? null,
      },
      lines,
    );
    await assertWithinPlan(trx, auth.accountId, master.id, body.value !== undefined ? 'value' : 'line_items');
    await recordInvoiceEvent(trx, auth, 'invoice:created', child);
    return child;
  });
  return toInvoice(await loadView(db, auth.accountId, row));
}

// ---------------------------------------------------------------------------------------------
// Plans that run themselves (auto_generate, auto_send): the scheduler's steps, plans.scheduler.ts

/** Queues a booked invoice for sending (the mail module's, handed in: mail imports this module). */
export type QueueInvoice = (db: Db, auth: AuthContext, invoiceId: number) => Promise<{ id: number }>;

/** The caller the scheduler acts as in an account: no user, no integration. */
export const schedulerAuth = (accountId: number): AuthContext => ({
  accountId,
  userId: 0,
  integrationId: 0,
  tokenId: 0,
  scopes: new Set(['outgoing-invoice:write', 'outgoing-invoice:book', 'outgoing-invoice:send']),
});

/**
 * Makes the invoice of every period of a master that is due by `today` and has no run yet;
 * answers how many periods it dealt with. One transaction per period, the master locked: the
 * run row (unique per master and period) and the invoice commit together, so a period is
 * made once whatever crashes or runs beside. A period POST …/generate made already keeps
 * that invoice; a period whose invoice was deleted gets none.
 */
export async function generateDue(db: Db, master: InvoiceRow, today: string): Promise<number> {
  const done = await runs.runPeriods(db, master.id);
  const due = duePeriods(master, today).filter((p) => !done.has(p.start));
  let made = 0;
  for (const period of due) {
    const ran = await transact(db, async (trx) => {
      const auth = schedulerAuth(master.account_id);
      const m = await repo.findInvoice(trx, master.account_id, master.id, true);
      // Switched off, shortened or deleted since the look: the locked row decides.
      const still = m ? duePeriods(m, today).find((p) => p.start === period.start) : undefined;
      if (!m || !still) return false;
      const now = nowIso();
      const runId = await runs.insertRun(trx, {
        account_id: m.account_id,
        master_id: m.id,
        period_start: still.start,
        state: 'generated',
        updated_at: now,
      });
      if (runId === undefined) return false;
      let child = await runs.childForPeriod(trx, m.account_id, m.id, still.start);
      const first = firstState(child, Boolean(m.auto_send));
      if (!child) {
        const lines = await masterLines(trx, m.account_id, m);
        ({ row: child } = await repo.insertWithLines(
          trx,
          { ...childFields(m, still, now), type: 'invoice', status: 'open' },
          lines,
        ));
        await recordInvoiceEvent(trx, auth, 'invoice:created', child);
        await repo.updateInvoice(trx, m.account_id, m.id, { updated_at: now });
      }
      await runs.updateRun(trx, runId, { invoice_id: child.id, ...first });
      return true;
    });
    if (ran) made++;
  }
  return made;
}

/**
 * Books a pending period's invoice and queues it for sending, in one transaction with the
 * run's new state: a crash anywhere in it leaves the run pending and nothing booked or
 * queued, and the next run does it; a run taken by another process is left to it. Refusals
 * are recorded in the run (`reason`): booking refused → `failed` (the invoice stays a draft);
 * sending refused or no relay (`queue` null) → `booked`. Answers the state it ended in, or
 * undefined when the run was not pending any more.
 */
export async function sendPending(
  db: Db,
  run: runs.PlanRunRow,
  queue: QueueInvoice | null,
): Promise<RunState | undefined> {
  return transact(db, async (trx) => {
    const now = nowIso();
    if (!(await runs.takePending(trx, run.id, now))) return undefined;
    const end = async (state: RunState, reason: string | null, mailMessageId: number | null = null) => {
      await runs.updateRun(trx, run.id, { state, reason, mail_message_id: mailMessageId, updated_at: now });
      // The master shows its runs (auto_runs): it changed.
      await repo.updateInvoice(trx, run.account_id, run.master_id, { updated_at: now });
      return state;
    };
    // The master before its invoice, in the order POST …/generate locks them (no deadlock).
    const master = await repo.findInvoice(trx, run.account_id, run.master_id, true, true);
    const child =
      run.invoice_id === null
        ? undefined
        : await repo.findInvoice(trx, run.account_id, run.invoice_id, true, true);
    const refusal = sendRefusal(master, child);
    if (refusal || !child) return end(refusal?.state ?? 'skipped', refusal?.reason ?? null);
    const auth = schedulerAuth(run.account_id);
    try {
      await transact(trx, (t) => bookInvoice(t, auth, child.id, {}));
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return end('failed', `not booked: ${err.code}: ${err.message}`);
    }
    if (!queue) return end('booked', 'not sent: mail_not_configured: no mail relay is configured (SMTP_URL)');
    try {
      const message = await transact(trx, (t) => queue(t, auth, child.id));
      return end('queued', null, message.id);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return end('booked', `not sent: ${err.code}: ${err.message}`);
    }
  });
}
