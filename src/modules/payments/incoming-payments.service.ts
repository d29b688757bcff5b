import type { Db } from '../../db/index.js';
import { transact } from '../../db/transact.js';
import type { AuthContext } from '../../plugins/auth.js';
import { type FieldError, validationFailed } from '../../shared/errors.js';
import { fromCents, toCentsRounded } from '../../shared/money.js';
import { todayIso } from '../../shared/time.js';
import { assertPeriodOpen } from '../exports/exports.public.js';
import {
  addPaidCents,
  type IncomingInvoiceRow,
  lockIncomingInvoice,
  openCentsOf,
  removePaidCents,
} from '../incoming-invoices/incoming-invoices.public.js';
import * as repo from './incoming-payments.repository.js';
import type { IncomingCreditCreate, IncomingPaymentCreate } from './incoming-payments.schemas.js';
import { findPaymentAccount } from './payments.repository.js';
import type { Payment } from './payments.schemas.js';
import { getPayment } from './payments.service.js';

/** The 422s of incoming payments answer with the first field's message alone as their detail. */
const invalid = (errors: FieldError[]) => validationFailed(errors, errors[0]!.message);

export function createPayment(db: Db, auth: AuthContext, body: IncomingPaymentCreate): Promise<Payment> {
  const amount = toCentsRounded(body.amount);
  const shares =
    body.invoices?.map((s) => ({
      incoming_invoice_id: s.incoming_invoice_id,
      amount: toCentsRounded(s.amount),
    })) ?? (body.incoming_invoice_id ? [{ incoming_invoice_id: body.incoming_invoice_id, amount }] : []);
  if (shares.length === 0)
    throw invalid([{ field: 'invoices', message: 'name at least one incoming invoice' }]);
  if (body.invoices && body.incoming_invoice_id)
    throw invalid([{ field: 'incoming_invoice_id', message: 'give either incoming_invoice_id or invoices' }]);
  const sum = shares.reduce((s, x) => s + x.amount, 0);
  if (sum !== amount)
    throw invalid([
      { field: 'invoices', message: `shares sum to ${fromCents(sum)}, not the amount ${body.amount}` },
    ]);
  return transact(db, async (trx) => {
    await assertPeriodOpen(trx, auth.accountId, 'The payment', body.date);
    const errors: FieldError[] = [];
    const seen = new Set<number>();
    const rows: IncomingInvoiceRow[] = [];
    for (const [i, s] of shares.entries()) {
      const field = body.invoices ? `invoices.${i}.incoming_invoice_id` : 'incoming_invoice_id';
      if (seen.has(s.incoming_invoice_id)) {
        errors.push({ field, message: 'is named twice' });
        continue;
      }
      seen.add(s.incoming_invoice_id);
      const row = await lockIncomingInvoice(trx, auth.accountId, s.incoming_invoice_id);
      if (!row) errors.push({ field, message: 'no such incoming invoice' });
      else if (s.amount > openCentsOf(row))
        errors.push({
          field: body.invoices ? `invoices.${i}.amount` : 'amount',
          message: `exceeds the open amount ${fromCents(openCentsOf(row))}`,
        });
      else rows.push(row);
    }
    // The payment account is a reference like the invoices: it must be one of this account's.
    if (
      body.payment_account_id != null &&
      !(await findPaymentAccount(trx, auth.accountId, body.payment_account_id))
    )
      errors.push({ field: 'payment_account_id', message: 'no such payment account' });
    if (errors.length) throw invalid(errors);
    const payment = await repo.insertPayment(trx, {
      account_id: auth.accountId,
      type: 'payment',
      amount,
      date: body.date,
      payment_account_id: body.payment_account_id ?? null,
      reference: body.reference ?? null,
    });
    await repo.insertAllocations(
      trx,
      shares.map((s) => ({ ...s, account_id: auth.accountId, incoming_payment_id: payment.id })),
    );
    for (const [i, row] of rows.entries()) await addPaidCents(trx, auth.accountId, row, shares[i]!.amount);
    // Answered as GET /payments/{id}, its Location, answers it: one record, one shape.
    return getPayment(trx, auth, payment.id);
  });
}

export function createCreditOffset(db: Db, auth: AuthContext, body: IncomingCreditCreate): Promise<Payment> {
  return transact(db, async (trx) => {
    await assertPeriodOpen(trx, auth.accountId, 'The credit offset', body.date ?? todayIso());
    const errors: FieldError[] = [];
    const invoice = await lockIncomingInvoice(trx, auth.accountId, body.invoice_id);
    const credit = await lockIncomingInvoice(trx, auth.accountId, body.credit_id);
    if (!invoice) errors.push({ field: 'invoice_id', message: 'no such incoming invoice' });
    else if (invoice.document_type !== 'Invoice')
      errors.push({ field: 'invoice_id', message: 'must be a document of type Invoice' });
    if (!credit) errors.push({ field: 'credit_id', message: 'no such incoming credit' });
    else if (credit.document_type !== 'Credit')
      errors.push({ field: 'credit_id', message: 'must be a document of type Credit' });
    if (errors.length) throw invalid(errors);
    const open = Math.min(openCentsOf(invoice!), openCentsOf(credit!));
    const amount = body.amount === undefined ? open : toCentsRounded(body.amount);
    if (amount <= 0 || amount > open)
      throw invalid([
        {
          field: 'amount',
          message: `must be positive and at most the open amounts (invoice ${fromCents(openCentsOf(invoice!))}, credit ${fromCents(openCentsOf(credit!))})`,
        },
      ]);
    const payment = await repo.insertPayment(trx, {
      account_id: auth.accountId,
      type: 'credit',
      amount,
      date: body.date ?? todayIso(),
      payment_account_id: null,
      reference: credit!.invoice_number,
    });
    const shares = [
      { incoming_invoice_id: invoice!.id, amount },
      { incoming_invoice_id: credit!.id, amount },
    ];
    await repo.insertAllocations(
      trx,
      shares.map((s) => ({ ...s, account_id: auth.accountId, incoming_payment_id: payment.id })),
    );
    await addPaidCents(trx, auth.accountId, invoice!, amount);
    await addPaidCents(trx, auth.accountId, credit!, amount);
    // Answered as GET /payments/{id}, its Location, answers it: one record, one shape.
    return getPayment(trx, auth, payment.id);
  });
}

/** Removes incoming payments (a bank match undone): the documents' paid totals drop again. */
export async function removeIncomingPayments(db: Db, auth: AuthContext, ids: number[]): Promise<void> {
  await transact(db, async (trx) => {
    const shares = await repo.deletePayments(trx, auth.accountId, ids);
    for (const s of shares) {
      const row = await lockIncomingInvoice(trx, auth.accountId, s.incoming_invoice_id);
      if (row) await removePaidCents(trx, auth.accountId, row, Number(s.amount));
    }
  });
}
