import type { Db } from '../../db/index.js';
import { fromCents } from '../../shared/money.js';
import { todayIso } from '../../shared/time.js';
import type { AuthContext } from '../../shared/tokens.js';
import { getAccountProfile } from '../account/account.service.js';
import { AGEING_BUCKETS, ageing, type Buckets } from './ageing.domain.js';
import * as read from './datev.read-model.js';
import type { AgeingQuery, OssQuery, VatReturnQuery } from './exports.schemas.js';
import {
  type BookedSource,
  bookedAmounts,
  centsOf,
  type DocRef,
  documentEntries,
  fromOtherEuState,
  type InputEntry,
  type OutputEntry,
  ossCountry,
  ossFigures,
  paidShares,
  periodRange,
  vatFigures,
} from './vat.domain.js';

/** A party snapshot (`buyer`) as stored: JSON, or nothing when unreadable. */
const frozen = (json: string | null): Record<string, unknown> => {
  try {
    return json ? (JSON.parse(json) as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};

/** The tax entries of a booked document: its frozen document's, or an uploaded invoice's lines'. */
const entriesOf = (d: BookedSource | undefined) => {
  if (!d) return [];
  const a = bookedAmounts(d);
  return documentEntries(a.taxes, a.deductions);
};

type Entry = OutputEntry & { country: string | null };

/**
 * The output tax entries of a period by the account's VAT method: `accrual` takes the booked
 * documents dated in it, `cash` the money received in it, split over the rates of the invoice
 * it pays. Each names the EU state of a One-Stop-Shop supply (else null). Invoiced dunning
 * charges are damages, not a supply: they stay out.
 */
async function outputEntries(
  db: Db,
  accountId: number,
  from: string,
  to: string,
  method: 'accrual' | 'cash',
): Promise<Entry[]> {
  const out: Entry[] = [];
  const withCountry = (entries: OutputEntry[], buyer: string | null) => {
    const b = frozen(buyer) as { country_code?: string | null; vat_id?: string | null };
    for (const e of entries) out.push({ ...e, country: ossCountry(e.rate, b) });
  };
  if (method === 'accrual') {
    const docs = await read.bookedDocuments(db, accountId, from, to);
    const charges = await read.chargeInvoiceIds(
      db,
      accountId,
      docs.map((d) => d.id),
    );
    for (const d of docs.filter((x) => !charges.has(x.id))) {
      const doc: DocRef = { kind: 'outgoing_invoice', id: d.id, number: d.invoice_number };
      withCountry(
        entriesOf(d).map((e) => ({ ...e, doc })),
        d.buyer,
      );
    }
  } else {
    const payments = await read.paymentsReceived(db, accountId, from, to);
    const docs = new Map(
      (await read.bookedDocumentsById(db, accountId, [...new Set(payments.map((p) => p.invoice_id))])).map(
        (d) => [d.id, d],
      ),
    );
    const charges = await read.chargeInvoiceIds(db, accountId, [...docs.keys()]);
    for (const p of payments.filter((x) => !charges.has(x.invoice_id))) {
      const doc: DocRef = { kind: 'payment', id: p.id, number: p.invoice_number };
      const d = docs.get(p.invoice_id);
      withCountry(paidShares({ doc, amount: Number(p.amount) }, entriesOf(d)), p.buyer);
    }
  }
  return out;
}

const money = (c: number | null) => (c === null ? null : fromCents(c));

/**
 * The VAT return figures (Umsatzsteuer-Voranmeldung) of a month or quarter by Kennzahl, by
 * the account's VAT method; One-Stop-Shop supplies are left to the OSS return. Input tax
 * comes from the bookings of incoming invoices dated in the period, either way.
 */
export async function vatReturn(db: Db, auth: AuthContext, q: VatReturnQuery) {
  const { from, to } = periodRange(q.period);
  const method = (await getAccountProfile(db, auth.accountId)).accounting.vat_method;
  const output = (await outputEntries(db, auth.accountId, from, to, method)).filter(
    (e) => e.country === null,
  );
  const input: InputEntry[] = (await read.incomingBookings(db, auth.accountId, from, to)).map((b) => ({
    doc: { kind: 'incoming_invoice', id: b.invoice_id, number: b.invoice_number },
    gross: b.document_type === 'Credit' ? -Number(b.amount) : Number(b.amount),
    rate: b.tax_rate,
    reverseCharge:
      b.tax_rate !== null &&
      Number(b.tax_rate) === 0 &&
      fromOtherEuState(b.supplier_country, b.supplier_vat_id),
  }));
  return {
    period: q.period,
    date_from: from,
    date_to: to,
    vat_method: method,
    figures: vatFigures(output, input).map((f) => ({ ...f, base: money(f.base), tax: money(f.tax) })),
  };
}

/**
 * The One-Stop-Shop figures of a quarter: supplies to consumers in other EU states charged at
 * that state's rate, by country and rate, by the same VAT method as the VAT return.
 */
export async function ossReturn(db: Db, auth: AuthContext, q: OssQuery) {
  const { from, to } = periodRange(q.period);
  const method = (await getAccountProfile(db, auth.accountId)).accounting.vat_method;
  const entries = (await outputEntries(db, auth.accountId, from, to, method)).filter(
    (e): e is OutputEntry & { country: string } => e.country !== null,
  );
  const countries = ossFigures(entries);
  return {
    period: q.period,
    date_from: from,
    date_to: to,
    countries: countries.map((c) => ({
      country: c.country,
      base: fromCents(c.base),
      tax: fromCents(c.tax),
      rates: c.rates.map((r) => ({ ...r, base: fromCents(r.base), tax: fromCents(r.tax) })),
    })),
    totals: {
      base: fromCents(countries.reduce((s, c) => s + c.base, 0)),
      tax: fromCents(countries.reduce((s, c) => s + c.tax, 0)),
    },
  };
}

const bucketsOut = (b: Buckets): Buckets =>
  Object.fromEntries(AGEING_BUCKETS.map((k) => [k, fromCents(b[k])])) as Buckets;

/**
 * Receivables ageing on a day (default today): each booked invoice's open amount then (its
 * amount due less payments and credits dated up to the day), by days overdue, per client.
 */
export async function receivablesAgeing(db: Db, auth: AuthContext, q: AgeingQuery) {
  const asOf = q.date ?? todayIso();
  const [invoices, paid] = await Promise.all([
    read.invoicesUpTo(db, auth.accountId, asOf),
    read.paidUpTo(db, auth.accountId, asOf),
  ]);
  const paidBy = new Map(paid.map((p) => [p.invoice_id, Number(p.paid)]));
  const items = invoices.map((i) => {
    const due = bookedAmounts(i).amountDue;
    const buyer = frozen(i.buyer) as { name?: string };
    return {
      invoiceId: i.id,
      number: i.invoice_number,
      clientId: i.client_id,
      clientName: buyer.name ?? '',
      dueDate: i.due_date ?? i.date!,
      open: Math.max(0, centsOf(due) - (paidBy.get(i.id) ?? 0)),
    };
  });
  const r = ageing(items, asOf);
  return {
    date: asOf,
    totals: { ...bucketsOut(r.totals), total: fromCents(r.total) },
    clients: r.clients.map((c) => ({
      ...c,
      buckets: bucketsOut(c.buckets),
      total: fromCents(c.total),
      invoices: c.invoices.map((x) => ({ ...x, open: fromCents(x.open) })),
    })),
  };
}

/**
 * Payables ageing on a day (default today): each incoming invoice's open amount then (its
 * gross less payments and credit offsets dated up to the day), by days overdue (after its due
 * date, else its date), per supplier.
 */
export async function payablesAgeing(db: Db, auth: AuthContext, q: AgeingQuery) {
  const asOf = q.date ?? todayIso();
  const [invoices, paid] = await Promise.all([
    read.incomingUpTo(db, auth.accountId, asOf),
    read.paidIncomingUpTo(db, auth.accountId, asOf),
  ]);
  const paidBy = new Map(paid.map((p) => [p.incoming_invoice_id, Number(p.paid)]));
  const r = ageing(
    invoices.map((i) => ({
      invoiceId: i.id,
      number: i.invoice_number,
      clientId: i.supplier_id,
      clientName: i.supplier_name ?? '',
      dueDate: i.due_date ?? i.date!,
      open: Math.max(0, Number(i.gross_total) - (paidBy.get(i.id) ?? 0)),
    })),
    asOf,
  );
  return {
    date: asOf,
    totals: { ...bucketsOut(r.totals), total: fromCents(r.total) },
    suppliers: r.clients.map(({ client_id, ...c }) => ({
      supplier_id: client_id,
      ...c,
      buckets: bucketsOut(c.buckets),
      total: fromCents(c.total),
      invoices: c.invoices.map((x) => ({ ...x, open: fromCents(x.open) })),
    })),
  };
}
