/**
 * What matching reads from other modules' tables: the booked invoices that can receive money
 * (with an estimate of what is open, from their stored totals and the ledger) and the clients
 * whose invoices earlier bank lines from an IBAN paid. The estimate only ranks suggestions;
 * an automatic match reads the invoice's exact payment state (banking.service.ts).
 */
import { sql } from 'kysely';
import type { Db } from '../../db/index.js';

export interface InvoiceCandidateRow {
  id: number;
  invoice_number: string;
  client_id: number | null;
  currency: string;
  type: string;
  /** Stored gross of the lines (null: not stored), and what the ledger settled. */
  gross: number | null;
  paid: number;
}

/** Booked invoices that money can be received for (no credits, no plan masters). */
export async function invoiceCandidates(db: Db, accountId: number): Promise<InvoiceCandidateRow[]> {
  const rows = await db
    .selectFrom('outgoing_invoices as i')
    .leftJoin('payments as p', (j) => j.onRef('p.invoice_id', '=', 'i.id').on('p.account_id', '=', accountId))
    .select([
      'i.id',
      'i.invoice_number',
      'i.client_id',
      'i.currency',
      'i.type',
      'i.lines_gross as gross',
      sql<string | number>`coalesce(sum(p.amount), 0)`.as('paid'),
    ])
    .where('i.account_id', '=', accountId)
    .where('i.status', '=', 'booked')
    .where('i.deleted_at', 'is', null)
    .where('i.invoice_number', 'is not', null)
    .where('i.type', 'in', ['invoice', 'deposit', 'partial', 'final'])
    .groupBy(['i.id', 'i.invoice_number', 'i.client_id', 'i.currency', 'i.type', 'i.lines_gross'])
    .orderBy('i.id')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    invoice_number: r.invoice_number!,
    client_id: r.client_id,
    currency: r.currency,
    type: r.type,
    gross: r.gross === null ? null : Number(r.gross),
    paid: Number(r.paid),
  }));
}

/** Clients whose invoices bank lines from each IBAN paid before (through a match). */
export async function clientsByIban(db: Db, accountId: number): Promise<Map<string, number[]>> {
  const rows = await db
    .selectFrom('bank_matches as m')
    .innerJoin('bank_transactions as t', 't.id', 'm.transaction_id')
    .innerJoin('outgoing_invoices as i', 'i.id', 'm.invoice_id')
    .select(['t.counterparty_iban as iban', 'i.client_id'])
    .distinct()
    .where('m.account_id', '=', accountId)
    .where('m.invoice_kind', '=', 'outgoing')
    .where('t.counterparty_iban', 'is not', null)
    .where('i.client_id', 'is not', null)
    .execute();
  const out = new Map<string, number[]>();
  for (const r of rows) {
    const list = out.get(r.iban!) ?? [];
    list.push(r.client_id!);
    out.set(r.iban!, list);
  }
  return out;
}

/**
 * Incoming invoices that money can be paid out for: documents of type Invoice with the
 * supplier's number, not paid in full. Their open amount is exact (the paid total is kept on
 * the document); `supplier_id` is the party, `reference` the RF reference the supplier asks for.
 */
export interface IncomingCandidateRow {
  id: number;
  invoice_number: string;
  supplier_id: number | null;
  currency: string;
  payment_reference: string | null;
  open: number;
}

export async function incomingCandidates(
  db: Db,
  accountId: number,
  ids?: readonly number[],
): Promise<IncomingCandidateRow[]> {
  if (ids && ids.length === 0) return [];
  let q = db
    .selectFrom('incoming_invoices')
    .select([
      'id',
      'invoice_number',
      'supplier_id',
      'currency',
      'payment_reference',
      'gross_total',
      'paid_total',
    ])
    .where('account_id', '=', accountId)
    .where('document_type', '=', 'Invoice')
    .where('invoice_number', 'is not', null);
  q = ids ? q.where('id', 'in', [...ids]) : q.where('status', '!=', 'paid');
  const rows = await q.orderBy('id').execute();
  return rows.map((r) => ({
    id: r.id,
    invoice_number: r.invoice_number!,
    supplier_id: r.supplier_id,
    currency: r.currency,
    payment_reference: r.payment_reference,
    open: Number(r.gross_total) - Number(r.paid_total),
  }));
}

/**
 * The suppliers each IBAN is known for: the supplier record, the IBAN an incoming invoice of
 * the supplier printed, and earlier bank lines from the account to the IBAN matched to the
 * supplier's invoices.
 */
export async function suppliersByIban(db: Db, accountId: number): Promise<Map<string, number[]>> {
  const [records, printed, paid] = await Promise.all([
    db
      .selectFrom('suppliers')
      .select(['iban', 'id as supplier_id'])
      .where('account_id', '=', accountId)
      .where('iban', 'is not', null)
      .execute(),
    db
      .selectFrom('incoming_invoices')
      .select(['iban', 'supplier_id'])
      .distinct()
      .where('account_id', '=', accountId)
      .where('iban', 'is not', null)
      .where('supplier_id', 'is not', null)
      .execute(),
    db
      .selectFrom('bank_matches as m')
      .innerJoin('bank_transactions as t', 't.id', 'm.transaction_id')
      .innerJoin('incoming_invoices as i', 'i.id', 'm.invoice_id')
      .select(['t.counterparty_iban as iban', 'i.supplier_id'])
      .distinct()
      .where('m.account_id', '=', accountId)
      .where('m.invoice_kind', '=', 'incoming')
      .where('t.counterparty_iban', 'is not', null)
      .where('i.supplier_id', 'is not', null)
      .execute(),
  ]);
  const out = new Map<string, number[]>();
  for (const r of [...records, ...printed, ...paid]) {
    const iban = r.iban!.replace(/\s+/g, '').toUpperCase();
    const list = out.get(iban) ?? [];
    if (!list.includes(r.supplier_id!)) list.push(r.supplier_id!);
    out.set(iban, list);
  }
  return out;
}

/** An invoice a suggestion names, as a person deciding reads it: who, and what is still open. */
export interface SuggestedInvoiceRow {
  id: number;
  party: string | null;
  /** Open cents, estimated from the stored totals (the match itself reads the exact state). */
  open: number;
}

/** The party and open amount of suggested invoices: clients' (outgoing) or suppliers' (incoming). */
export async function suggestedInvoices(
  db: Db,
  accountId: number,
  kind: 'outgoing' | 'incoming',
  ids: readonly number[],
): Promise<SuggestedInvoiceRow[]> {
  if (ids.length === 0) return [];
  if (kind === 'incoming') {
    const rows = await db
      .selectFrom('incoming_invoices as i')
      .leftJoin('suppliers as s', (j) =>
        j.onRef('s.id', '=', 'i.supplier_id').on('s.account_id', '=', accountId),
      )
      .select(['i.id', 's.name', 'i.supplier_name', 'i.gross_total', 'i.paid_total'])
      .where('i.account_id', '=', accountId)
      .where('i.id', 'in', [...ids])
      .execute();
    return rows.map((r) => ({
      id: r.id,
      party: r.name ?? r.supplier_name,
      open: Number(r.gross_total) - Number(r.paid_total),
    }));
  }
  const rows = await db
    .selectFrom('outgoing_invoices as i')
    .leftJoin('clients as c', (j) => j.onRef('c.id', '=', 'i.client_id').on('c.account_id', '=', accountId))
    .leftJoin('payments as p', (j) => j.onRef('p.invoice_id', '=', 'i.id').on('p.account_id', '=', accountId))
    .select([
      'i.id',
      'c.name',
      'i.lines_gross as gross',
      sql<string | number>`coalesce(sum(p.amount), 0)`.as('paid'),
    ])
    .where('i.account_id', '=', accountId)
    .where('i.id', 'in', [...ids])
    .groupBy(['i.id', 'c.name', 'i.lines_gross'])
    .execute();
  return rows.map((r) => ({
    id: r.id,
    party: r.name,
    open: r.gross === null ? 0 : Number(r.gross) - Number(r.paid),
  }));
}
