import type { Transaction } from 'kysely';
import { type Db, isPostgres } from '../../db/index.js';
import type { Database } from '../../db/schema.js';
import { transact } from '../../db/transact.js';
import type { AuthContext } from '../../plugins/auth.js';
import { AppError, type FieldError, notFound, validationFailed } from '../../shared/errors.js';
import { recordEvent } from '../../shared/events.js';
import { isValidBic, isValidIban } from '../../shared/identifiers.js';
import { fromCents, toCents } from '../../shared/money.js';
import type { Page } from '../../shared/paging.js';
import { nowIso, todayIso } from '../../shared/time.js';
import { syncSettlement } from '../dunning/dunning.public.js';
import { assertPeriodOpen } from '../exports/exports.public.js';
import * as invoices from '../outgoing-invoices/outgoing-invoices.public.js';
import { invalidReference, isMaster } from '../outgoing-invoices/outgoing-invoices.public.js';
import { allocationsOf } from './incoming-payments.repository.js';
import type { LedgerRow } from './payments.read-model.js';
import * as ledger from './payments.read-model.js';
import type { PaymentAccountRow, PaymentRow } from './payments.repository.js';
import * as repo from './payments.repository.js';
import type {
  CreditAssociationCreate,
  OutgoingPaymentCreate,
  Payment,
  PaymentAccount,
  PaymentAccountCreate,
  PaymentAccountListQuery,
  PaymentAccountUpdate,
  PaymentCreated,
  PaymentListQuery,
} from './payments.schemas.js';

export function toPaymentAccount(r: PaymentAccountRow): PaymentAccount {
  return {
    id: r.id,
    name: r.name,
    type: r.type as PaymentAccount['type'],
    iban: r.iban,
    bic: r.bic,
    bank_name: r.bank_name,
    currency: r.currency,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

type Share = { incoming_invoice_id: number; amount: number };

/** A row of the ledger (either table) as the API shows it; `shares` of incoming kinds in cents. */
export function toPayment(r: LedgerRow, shares: Share[] = []): Payment {
  return {
    id: r.id,
    type: r.type as Payment['type'],
    invoice_id: r.invoice_id,
    credit_id: r.credit_id,
    incoming_invoices: shares.map((a) => ({
      incoming_invoice_id: a.incoming_invoice_id,
      amount: fromCents(Number(a.amount)),
    })),
    payment_account_id: r.payment_account_id,
    amount: fromCents(Number(r.amount)),
    currency: r.currency,
    date: r.date,
    description: r.description,
    bank_transaction_id: r.bank_transaction_id ?? null,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

export const listPaymentAccounts = (db: Db, auth: AuthContext, q: PaymentAccountListQuery) =>
  repo.listPaymentAccounts(db, auth.accountId, q);

/** One payment account as the list shows it (the change feed's read of one record). */
export async function getPaymentAccount(db: Db, auth: AuthContext, id: number): Promise<PaymentAccount> {
  const row = await repo.findPaymentAccount(db, auth.accountId, id);
  if (!row) throw notFound('Payment account');
  return toPaymentAccount(row);
}

/** IBAN and BIC checked and in their electronic form; an IBAN names one payment account. */
async function checkedBankFields(
  db: Db,
  accountId: number,
  body: { iban?: string | null; bic?: string | null },
  self?: number,
): Promise<{ iban?: string | null; bic?: string | null }> {
  const out: { iban?: string | null; bic?: string | null } = {};
  const errors: FieldError[] = [];
  if (body.iban !== undefined) {
    out.iban = body.iban === null ? null : body.iban.replace(/\s+/g, '').toUpperCase();
    if (out.iban !== null && !isValidIban(out.iban))
      errors.push({ field: 'iban', message: 'is not a valid IBAN' });
  }
  if (body.bic !== undefined) {
    out.bic = body.bic === null ? null : body.bic.toUpperCase();
    if (out.bic !== null && !isValidBic(out.bic))
      errors.push({ field: 'bic', message: 'is not a valid BIC' });
  }
  if (errors.length > 0) throw validationFailed(errors);
  if (out.iban) {
    const holders = await repo.paymentAccountsByIban(db, accountId, out.iban);
    const other = holders.find((h) => h.id !== self);
    if (other) throw new AppError('already_exists', `Payment account ${other.id} has this IBAN`);
  }
  return out;
}

/** A new payment account (beyond the specification, issue 40: `banking:write`). */
export async function createPaymentAccount(
  db: Db,
  auth: AuthContext,
  body: PaymentAccountCreate,
): Promise<PaymentAccount> {
  const row = await transact(db, async (trx) => {
    const bank = await checkedBankFields(trx, auth.accountId, body);
    return repo.insertPaymentAccountRow(trx, {
      account_id: auth.accountId,
      name: body.name,
      type: body.type ?? 'bank',
      iban: bank.iban ?? null,
      bic: bank.bic ?? null,
      bank_name: body.bank_name ?? null,
      currency: body.currency ?? 'EUR',
    });
  });
  return toPaymentAccount(row);
}

/** Changes the given fields of a payment account. */
export async function updatePaymentAccount(
  db: Db,
  auth: AuthContext,
  id: number,
  body: PaymentAccountUpdate,
): Promise<PaymentAccount> {
  const row = await transact(db, async (trx) => {
    const current = await repo.findPaymentAccount(trx, auth.accountId, id);
    if (!current) throw notFound('Payment account');
    const bank = await checkedBankFields(trx, auth.accountId, body, id);
    const changes: Record<string, unknown> = {
      ...(body.name === undefined ? {} : { name: body.name }),
      ...(body.type === undefined ? {} : { type: body.type }),
      ...bank,
      ...(body.bank_name === undefined ? {} : { bank_name: body.bank_name }),
      ...(body.currency === undefined ? {} : { currency: body.currency }),
    };
    // Sending back what was read changes nothing: no new updated_at, no change-feed entry.
    const same = Object.entries(changes).every(([k, v]) => (current as Record<string, unknown>)[k] === v);
    if (same) return current;
    const updated = await repo.updatePaymentAccount(trx, auth.accountId, id, {
      ...changes,
      updated_at: nowIso(),
    });
    if (!updated) throw notFound('Payment account');
    return updated;
  });
  return toPaymentAccount(row);
}

/**
 * Removes outgoing payments (a bank match undone) and marks their invoices changed; the
 * dunning letters of an invoice open again stand again.
 */
export async function removeOutgoingPayments(db: Db, auth: AuthContext, ids: number[]): Promise<void> {
  await transact(db, async (trx) => {
    const { invoiceIds, dates } = await repo.deleteOutgoingPayments(trx, auth.accountId, ids);
    // A payment in a locked month stays (Festschreibung): the throw rolls the delete back.
    await assertPeriodOpen(trx, auth.accountId, 'The payment', ...dates);
    await invoices.touchInvoices(trx, auth.accountId, invoiceIds);
    await syncSettlement(trx, auth.accountId, invoiceIds);
  });
}

/** Shares of the incoming payments among `rows`, by payment id. */
async function sharesOf(db: Db, rows: LedgerRow[]): Promise<Map<number, Share[]>> {
  const incoming = rows.filter((r) => r.type.startsWith('incoming_')).map((r) => r.id);
  const out = new Map<number, Share[]>();
  for (const a of await allocationsOf(db, incoming)) {
    const list = out.get(a.incoming_payment_id) ?? [];
    list.push({ incoming_invoice_id: a.incoming_invoice_id, amount: Number(a.amount) });
    out.set(a.incoming_payment_id, list);
  }
  return out;
}

/** The one ledger: payments of all four kinds, filtered and paged. */
export async function listPayments(db: Db, auth: AuthContext, q: PaymentListQuery): Promise<Page<Payment>> {
  const page = await ledger.listPayments(db, auth.accountId, q);
  const shares = await sharesOf(db, page.rows);
  return { ...page, rows: page.rows.map((r) => toPayment(r, shares.get(r.id))) };
}

/** One payment of any kind by its id (beyond the specification, which only lists them). */
export async function getPayment(db: Db, auth: AuthContext, id: number): Promise<Payment> {
  const row = await ledger.findLedgerPayment(db, auth.accountId, id);
  if (!row) throw notFound('Payment');
  return toPayment(row, (await sharesOf(db, [row])).get(row.id));
}

/** Inserts a payment and records `payment:created` with it as its GET answers, in one transaction. */
async function recordCreated(
  trx: Transaction<Database>,
  auth: AuthContext,
  values: Parameters<typeof repo.insertPayment>[1],
): Promise<PaymentRow> {
  const payment = await repo.insertPayment(trx, values);
  await recordEvent(trx, {
    accountId: auth.accountId,
    kind: 'payment:created',
    resourceType: 'payment',
    resourceId: payment.id,
    data: await getPayment(trx, auth, payment.id),
    integrationId: auth.integrationId,
  });
  return payment;
}

async function created(db: Db, auth: AuthContext, payment: PaymentRow): Promise<PaymentCreated> {
  const invoice = await invoices.findInvoice(db, auth.accountId, payment.invoice_id);
  const view = await invoices.invoiceState(db, auth.accountId, invoice!);
  return {
    ...toPayment(payment),
    invoice: {
      id: invoice!.id,
      paid_total: fromCents(view.payment.paid),
      open_total: fromCents(view.payment.open),
      payment_status: view.payment.status,
    },
  };
}

/** A document that can receive money: a booked invoice (not a credit, not a plan master). */
function payableRefusal(row: invoices.InvoiceRow | undefined, field: string): FieldError | null {
  if (!row) return { field, message: 'no such outgoing invoice' };
  if (row.type === 'credit' || isMaster(row.type))
    return { field, message: 'must be an invoice (not a credit or plan master)' };
  if (row.status !== 'booked') return { field, message: 'only booked invoices can be paid' };
  return null;
}

/** Records money received for a booked invoice; never more than is still open. */
export async function recordPayment(
  db: Db,
  auth: AuthContext,
  body: OutgoingPaymentCreate,
): Promise<PaymentCreated> {
  const amount = toCents(body.amount);
  if (amount === undefined)
    throw validationFailed([{ field: 'amount', message: 'must have at most two decimals' }]);
  const payment = await transact(db, async (trx) => {
    await assertPeriodOpen(trx, auth.accountId, 'The payment', body.date);
    // The invoice's row lock serializes payments on it, so two cannot overpay together.
    const invoice = await invoices.findInvoice(trx, auth.accountId, body.invoice_id, true);
    const account = await repo.findPaymentAccount(trx, auth.accountId, body.payment_account_id);
    const missing: FieldError[] = [];
    if (!invoice) missing.push({ field: 'invoice_id', message: 'no such outgoing invoice' });
    if (!account) missing.push({ field: 'payment_account_id', message: 'no such payment account' });
    if (missing.length > 0) throw invalidReference(missing);
    const refusal = payableRefusal(invoice, 'invoice_id');
    if (refusal) throw validationFailed([refusal]);
    const view = await invoices.invoiceState(trx, auth.accountId, invoice!);
    if (amount > view.payment.open) {
      throw validationFailed([
        { field: 'amount', message: `exceeds the open amount of ${fromCents(view.payment.open)}` },
      ]);
    }
    await invoices.touchInvoices(trx, auth.accountId, [invoice!.id]);
    const payment = await recordCreated(trx, auth, {
      account_id: auth.accountId,
      type: 'outgoing_invoice',
      invoice_id: invoice!.id,
      credit_id: null,
      payment_account_id: account!.id,
      amount,
      currency: invoice!.currency,
      date: body.date,
      description: body.description ?? null,
    });
    // A payment that settles the invoice settles its dunning letters with it.
    await syncSettlement(trx, auth.accountId, [invoice!.id]);
    return payment;
  });
  return created(db, auth, payment);
}

/** A payment of `recordPayments`: cents on one outgoing invoice. */
export interface PaymentToRecord {
  invoice_id: number;
  amount: number;
  date: string;
  payment_account_id: number;
  description: string | null;
}

/**
 * Records many payments on outgoing invoices under the rules of `recordPayment` (open period,
 * booked payable invoice, never more than is open, dunning settled), with the invoices locked
 * and their states read once for all: the bank import's certain matches of a chunk of lines.
 * All or nothing; answers the payments in the order given.
 */
export async function recordPayments(
  db: Db,
  auth: AuthContext,
  list: readonly PaymentToRecord[],
): Promise<PaymentRow[]> {
  if (list.length === 0) return [];
  return transact(db, async (trx) => {
    await assertPeriodOpen(trx, auth.accountId, 'The payment', ...new Set(list.map((p) => p.date)));
    const ids = [...new Set(list.map((p) => p.invoice_id))].sort((a, b) => a - b);
    // Row locks in id order (PostgreSQL), as `recordPayment` takes one: no overpaying together.
    if (isPostgres(trx)) for (const id of ids) await invoices.findInvoice(trx, auth.accountId, id, true);
    const states = await invoices.invoiceStates(trx, auth.accountId, ids);
    const accounts = new Map<number, PaymentAccountRow | undefined>();
    for (const id of new Set(list.map((p) => p.payment_account_id)))
      accounts.set(id, await repo.findPaymentAccount(trx, auth.accountId, id));
    const open = new Map<number, number>();
    list.forEach((p, i) => {
      const view = states.get(p.invoice_id);
      const missing: FieldError[] = [];
      if (!view) missing.push({ field: `${i}.invoice_id`, message: 'no such outgoing invoice' });
      if (!accounts.get(p.payment_account_id))
        missing.push({ field: `${i}.payment_account_id`, message: 'no such payment account' });
      if (missing.length > 0) throw invalidReference(missing);
      const refusal = payableRefusal(view!.row, `${i}.invoice_id`);
      if (refusal) throw validationFailed([refusal]);
      const left = open.get(p.invoice_id) ?? view!.payment.open;
      if (p.amount > left)
        throw validationFailed([
          { field: `${i}.amount`, message: `exceeds the open amount of ${fromCents(left)}` },
        ]);
      open.set(p.invoice_id, left - p.amount);
    });
    await invoices.touchInvoices(trx, auth.accountId, ids);
    const out: PaymentRow[] = [];
    for (const p of list) {
      const view = states.get(p.invoice_id)!;
      out.push(
        await recordCreated(trx, auth, {
          account_id: auth.accountId,
          type: 'outgoing_invoice',
          invoice_id: p.invoice_id,
          credit_id: null,
          payment_account_id: p.payment_account_id,
          amount: p.amount,
          currency: view.row.currency,
          date: p.date,
          description: p.description,
        }),
      );
    }
    await syncSettlement(trx, auth.accountId, ids);
    return out;
  });
}

/**
 * Settles an invoice with a booked credit of the same client and currency: the credit's
 * amount counts as paid on the invoice, and the credit is used up. A credit settles once.
 */
export async function associateCredit(
  db: Db,
  auth: AuthContext,
  body: CreditAssociationCreate,
): Promise<PaymentCreated> {
  const payment = await transact(db, async (trx) => {
    await assertPeriodOpen(trx, auth.accountId, 'The credit offset', body.date ?? todayIso());
    // Lock both in id order: two associations on the same pair cannot deadlock.
    const [first, second] = [body.invoice_id, body.credit_id].sort((a, b) => a - b);
    const locked = new Map<number, invoices.InvoiceRow | undefined>();
    for (const id of new Set([first!, second!]))
      locked.set(id, await invoices.findInvoice(trx, auth.accountId, id, true));
    const invoice = locked.get(body.invoice_id);
    const credit = locked.get(body.credit_id);
    const missing: FieldError[] = [];
    if (!invoice) missing.push({ field: 'invoice_id', message: 'no such outgoing invoice' });
    if (!credit) missing.push({ field: 'credit_id', message: 'no such outgoing credit' });
    if (missing.length > 0) throw invalidReference(missing);
    const errors: FieldError[] = [];
    const refusal = payableRefusal(invoice, 'invoice_id');
    if (refusal) errors.push(refusal);
    if (credit!.type !== 'credit') errors.push({ field: 'credit_id', message: 'must be a credit' });
    else if (credit!.status !== 'booked') errors.push({ field: 'credit_id', message: 'must be booked' });
    else if (credit!.client_id !== invoice!.client_id)
      errors.push({ field: 'credit_id', message: 'belongs to another client' });
    else if (credit!.currency !== invoice!.currency)
      errors.push({ field: 'credit_id', message: 'is in another currency' });
    else if (credit!.credited_invoice_id !== null && credit!.credited_invoice_id !== invoice!.id)
      errors.push({ field: 'credit_id', message: `corrects invoice ${credit!.credited_invoice_id}` });
    if (errors.length > 0) throw validationFailed(errors);
    const used = await repo.creditUse(trx, auth.accountId, credit!.id);
    if (used) {
      throw new AppError('conflict', `Credit ${credit!.id} already settles invoice ${used.invoice_id}`);
    }
    const [invoiceView, creditView] = [
      await invoices.invoiceState(trx, auth.accountId, invoice!),
      await invoices.invoiceState(trx, auth.accountId, credit!),
    ];
    const amount = -creditView.totals.gross;
    if (amount > invoiceView.payment.open) {
      throw validationFailed([
        {
          field: 'credit_id',
          message: `its amount ${fromCents(amount)} exceeds the open amount of ${fromCents(invoiceView.payment.open)}`,
        },
      ]);
    }
    await invoices.touchInvoices(trx, auth.accountId, [invoice!.id, credit!.id]);
    const payment = await recordCreated(trx, auth, {
      account_id: auth.accountId,
      type: 'outgoing_invoice_credit',
      invoice_id: invoice!.id,
      credit_id: credit!.id,
      payment_account_id: null,
      amount,
      currency: invoice!.currency,
      date: body.date ?? todayIso(),
      description: credit!.invoice_number ? `Credit ${credit!.invoice_number}` : null,
    });
    await syncSettlement(trx, auth.accountId, [invoice!.id]);
    return payment;
  });
  return created(db, auth, payment);
}
