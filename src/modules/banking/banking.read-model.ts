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
