import type { Db } from '../../db/index.js';
import { documentTotals, fromCents, subtractTotals, sumTotals, type Totals } from '../../shared/money.js';
import {
  type Deductible,
  deducted,
  effectiveDueDate,
  finalTotals,
  isRecurring,
  type PaymentState,
  paymentState,
} from './invoices.domain.js';
import {
  type DunningLetterSummary,
  dunningLettersOf,
  settledOn,
  usedCredits,
} from './invoices.read-model.js';
import type { InvoiceRow, ItemRow } from './invoices.repository.js';
import * as repo from './invoices.repository.js';
import type { Invoice, Master } from './invoices.schemas.js';
import { amountOf, toLineItem, totalsToWire } from './line-items.js';
import type { RunState } from './plans.domain.js';
import { runsOf } from './plans.repository.js';

/** A document with everything derived from it: totals, deductions, payment state. */
export interface InvoiceView {
  row: InvoiceRow;
  items: ItemRow[];
  /** What this document invoices (a final invoice: after deductions). */
  totals: Totals;
  /** Final invoices: the plan's positions before deductions. */
  planTotal: Totals | null;
  deductions: (Deductible & { row: InvoiceRow })[];
  payment: PaymentState;
  /** Its dunning letters, in level order (only booked invoices have any). */
  dunning: DunningLetterSummary[];
}

const itemLines = (items: ItemRow[]) =>
  items.map((i) => ({ net: Number(i.net_total), tax_rate: i.tax_rate }));

function groupItems(items: ItemRow[]): Map<number, ItemRow[]> {
  const by = new Map<number, ItemRow[]>();
  for (const it of items) {
    const list = by.get(it.invoice_id) ?? [];
    list.push(it);
    by.set(it.invoice_id, list);
  }
  return by;
}

/**
 * Views of many invoices with a fixed number of queries (lists, plan children). `fresh`: the
 * rows were just read, so their stored line totals hold; a row a service kept from before it
 * replaced the lines (`loadView` after a write) may not, and its totals are added up anew.
 */
export async function loadViews(
  db: Db,
  accountId: number,
  rows: InvoiceRow[],
  fresh = false,
): Promise<InvoiceView[]> {
  const finalMasters = [
    ...new Set(rows.filter((r) => r.type === 'final' && r.master_id).map((r) => r.master_id!)),
  ];
  const siblings = await repo.childrenOf(db, accountId, finalMasters);
  const ids = [...new Set([...rows.map((r) => r.id), ...siblings.map((s) => s.id)])];
  const [items, settled, credits, letters] = await Promise.all([
    repo.itemsOf(db, accountId, ids),
    settledOn(
      db,
      accountId,
      rows.map((r) => r.id),
    ),
    usedCredits(
      db,
      accountId,
      rows.filter((r) => r.type === 'credit').map((r) => r.id),
    ),
    dunningLettersOf(
      db,
      accountId,
      rows.filter((r) => r.status === 'booked' && r.type !== 'credit').map((r) => r.id),
    ),
  ]);
  return assembleViews(rows, fresh, { siblings, items, settled, credits, letters });
}

/** What `loadViews` reads besides the rows themselves. */
interface ViewData {
  /** The other invoices of the plans of final invoices. */
  siblings: InvoiceRow[];
  /** The items of the rows and of the siblings. */
  items: ItemRow[];
  /** Payments by invoice id; credits used by credit id. */
  settled: Map<number, number>;
  credits: Map<number, number>;
  /** Dunning letters by invoice id. */
  letters: Map<number, DunningLetterSummary[]>;
}

function assembleViews(rows: InvoiceRow[], fresh: boolean, d: ViewData): InvoiceView[] {
  const { siblings, items, settled, credits, letters } = d;
  const byInvoice = groupItems(items);
  // The totals stored with the lines; added up from the lines only where none are stored.
  const rowsById = new Map<number, InvoiceRow>();
  if (fresh) for (const r of rows) rowsById.set(r.id, r);
  for (const r of siblings) rowsById.set(r.id, r);
  const totalsOf = (id: number) => {
    const row = rowsById.get(id);
    return (row && repo.storedLineTotals(row)) ?? documentTotals(itemLines(byInvoice.get(id) ?? []));
  };
  return rows.map((row) => {
    const own = totalsOf(row.id);
    let totals = own;
    let planTotal: Totals | null = null;
    let deductions: InvoiceView['deductions'] = [];
    if (row.type === 'final') {
      deductions = deducted(
        siblings
          .filter((s) => s.master_id === row.master_id && s.id !== row.id)
          .map((s) => ({ row: s, type: s.type, status: s.status, totals: totalsOf(s.id) })),
      );
      planTotal = own;
      totals = finalTotals(own, deductions);
    }
    const paid = row.type === 'credit' ? -(credits.get(row.id) ?? 0) : (settled.get(row.id) ?? 0);
    return {
      row,
      items: byInvoice.get(row.id) ?? [],
      totals,
      planTotal,
      deductions,
      payment: paymentState(totals.gross, paid, row.status === 'booked'),
      dunning: letters.get(row.id) ?? [],
    };
  });
}

/**
 * The view of an invoice just created from `items`, without reading anything back: a new
 * document has no payments, no credit use and no plan (`loadView` would read exactly that).
 */
export const newView = (row: InvoiceRow, items: ItemRow[]): InvoiceView =>
  assembleViews([row], true, {
    siblings: [],
    items,
    settled: new Map(),
    credits: new Map(),
    letters: new Map(),
  })[0]!;

export async function loadView(db: Db, accountId: number, row: InvoiceRow): Promise<InvoiceView> {
  return (await loadViews(db, accountId, [row]))[0]!;
}

/** The highest level of a letter that stands (not cancelled); null when none does. */
const dunningLevel = (letters: readonly DunningLetterSummary[]): number | null =>
  letters.reduce<number | null>(
    (max, l) => (l.status !== 'cancelled' && (max === null || l.level > max) ? l.level : max),
    null,
  );

export function toInvoice(v: InvoiceView): Invoice {
  const r = v.row;
  return {
    id: r.id,
    type: r.type as Invoice['type'],
    status: r.status as Invoice['status'],
    invoice_number: r.invoice_number,
    external: Boolean(r.external),
    client_id: r.client_id,
    contact_id: r.contact_id,
    project_id: r.project_id,
    master_id: r.master_id,
    credited_invoice_id: r.credited_invoice_id,
    title: r.title,
    date: r.date,
    due_date: effectiveDueDate(r),
    payment_term_days: r.payment_term_days,
    service_period_start: r.service_period_start,
    service_period_end: r.service_period_end,
    service_date: r.service_date,
    plan_start: r.plan_start,
    plan_end: r.plan_end,
    ...(isRecurring(r.type)
      ? { auto_generate: Boolean(r.auto_generate), auto_send: Boolean(r.auto_send) }
      : {}),
    currency: r.currency,
    intro_text: r.intro_text,
    closing_text: r.closing_text,
    buyer_reference: r.buyer_reference,
    tax_exemption_category: r.tax_exemption_category as Invoice['tax_exemption_category'],
    tax_exemption_reason_code: r.tax_exemption_reason_code,
    tax_exemption_reason: r.tax_exemption_reason,
    seller: r.seller ? JSON.parse(r.seller) : null,
    buyer: r.buyer ? JSON.parse(r.buyer) : null,
    ...totalsToWire(v.totals),
    plan_total: v.planTotal ? totalsToWire(v.planTotal) : null,
    deductions: v.deductions.map((d) => ({
      invoice_id: d.row.id,
      type: d.row.type,
      invoice_number: d.row.invoice_number,
      date: d.row.date,
      ...totalsToWire(d.totals),
    })),
    paid_total: amountOf(v.payment.paid),
    open_total: amountOf(v.payment.open),
    payment_status: v.payment.status,
    dunning_level: dunningLevel(v.dunning),
    dunnings: v.dunning.map((l) => ({
      id: l.id,
      number: l.number,
      level: l.level,
      date: l.date,
      status: l.status as Invoice['dunnings'][number]['status'],
      total_due: fromCents(l.total_due),
    })),
    file_id: r.file_id,
    line_items: v.items.map(toLineItem),
    booked_at: r.booked_at,
    deleted_at: r.deleted_at,
    deleted_by: r.deleted_by,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/** The header of a plan that its answers show and its invoices take over. */
export const planHeader = (m: InvoiceRow) => ({
  client_id: m.client_id,
  contact_id: m.contact_id,
  project_id: m.project_id,
  title: m.title,
  currency: m.currency,
  payment_term_days: m.payment_term_days,
});

/** Plan masters with their children, with a fixed number of queries. */
export async function loadMasters(db: Db, accountId: number, masters: InvoiceRow[]): Promise<Master[]> {
  const children = await repo.childrenOf(
    db,
    accountId,
    masters.map((m) => m.id),
  );
  const [childViews, masterItems, planRuns] = await Promise.all([
    loadViews(db, accountId, children, true),
    repo.itemsOf(
      db,
      accountId,
      masters.map((m) => m.id),
    ),
    runsOf(
      db,
      accountId,
      masters.filter((m) => isRecurring(m.type)).map((m) => m.id),
    ),
  ]);
  const ownItems = groupItems(masterItems);
  return masters.map((m) => {
    const kids = childViews.filter((c) => c.row.master_id === m.id);
    const final = kids.find((c) => c.row.type === 'final');
    const items = isRecurring(m.type) ? (ownItems.get(m.id) ?? []) : (final?.items ?? []);
    const plan = documentTotals(itemLines(items));
    // Deposits, partials and credits count against a partial plan; every child against a recurring one.
    const invoiced = sumTotals(
      kids
        .filter((k) => isRecurring(m.type) || k.row.type !== 'final')
        .map((k) => documentTotals(itemLines(k.items))),
    );
    const remaining = isRecurring(m.type) ? null : subtractTotals(plan, invoiced);
    return {
      id: m.id,
      type: m.type as Master['type'],
      ...planHeader(m),
      plan_start: m.plan_start,
      plan_end: m.plan_end,
      auto_generate: Boolean(m.auto_generate),
      auto_send: Boolean(m.auto_send),
      auto_from: m.auto_from,
      auto_runs: planRuns
        .filter((r) => r.master_id === m.id)
        .map((r) => ({
          period_start: r.period_start,
          invoice_id: r.invoice_id,
          state: r.state as RunState,
          mail_message_id: r.mail_message_id,
          reason: r.reason,
          updated_at: r.updated_at,
        })),
      intro_text: m.intro_text,
      closing_text: m.closing_text,
      ...totalsToWire(plan),
      line_items: items.map(toLineItem),
      final_invoice_id: final?.row.id ?? null,
      invoiced_net_total: fromCents(invoiced.net),
      invoiced_gross_total: fromCents(invoiced.gross),
      remaining_net_total: remaining ? fromCents(remaining.net) : null,
      remaining_gross_total: remaining ? fromCents(remaining.gross) : null,
      children: kids.map((k) => ({
        id: k.row.id,
        type: k.row.type,
        status: k.row.status,
        invoice_number: k.row.invoice_number,
        date: k.row.date,
        due_date: effectiveDueDate(k.row),
        service_period_start: k.row.service_period_start,
        service_period_end: k.row.service_period_end,
        net_total: fromCents(k.totals.net),
        tax_total: fromCents(k.totals.tax),
        gross_total: fromCents(k.totals.gross),
        payment_status: k.payment.status,
      })),
      deleted_at: m.deleted_at,
      created_at: m.created_at,
      updated_at: m.updated_at,
    };
  });
}
