import type { Db } from '../../db/index.js';
import { transact } from '../../db/transact.js';
import { changesNothing } from '../../shared/changes.js';
import { AppError, type FieldError, notFound, validationFailed } from '../../shared/errors.js';
import { toCents } from '../../shared/money.js';
import { nowIso } from '../../shared/time.js';
import type { AuthContext } from '../../shared/tokens.js';
import { findChartOfAccount, requireChartOfAccount } from '../chart-of-accounts/chart-of-accounts.public.js';
import { assertPeriodOpen } from '../exports/exports.public.js';
import { findSupplier } from '../suppliers/suppliers.public.js';
import { type BookingRow, type InvoiceRow, rateIn } from './incoming-invoices.mappers.js';
import * as repo from './incoming-invoices.repository.js';
import type { BookingCreate, BookingUpdate } from './incoming-invoices.schemas.js';

export function bookingSumError(field: string, sum: number, gross: number): AppError {
  return validationFailed(
    [{ field, message: `bookings would sum to ${sum / 100}, more than the gross total ${gross / 100}` }],
    'Bookings exceed the gross total of the document',
  );
}

/** The sum of a document's bookings in cents, without the booking `except` (one being changed). */
export async function bookedCents(
  db: Db,
  accountId: number,
  invoiceId: number,
  except?: number,
): Promise<number> {
  const bookings = (await repo.bookingsOf(db, accountId, [invoiceId])).get(invoiceId) ?? [];
  return bookings.filter((b) => b.id !== except).reduce((s, b) => s + Number(b.amount), 0);
}

/**
 * Resolves inline bookings of a new document to rows: accounts must exist in the account,
 * the account defaults to the supplier's, the tax rate to the account's.
 */
export async function resolveBookings(
  db: Db,
  auth: AuthContext,
  invoice: Pick<InvoiceRow, 'id' | 'supplier_id' | 'gross_total'>,
  items: BookingCreate[],
) {
  const errors: FieldError[] = [];
  const supplier = invoice.supplier_id
    ? await findSupplier(db, auth.accountId, invoice.supplier_id)
    : undefined;
  const rows = [];
  for (const [i, b] of items.entries()) {
    const accountId = b.chart_of_account_id ?? supplier?.chart_of_account_id ?? null;
    const chart = accountId ? await findChartOfAccount(db, auth.accountId, accountId) : undefined;
    if (!chart) {
      errors.push({
        field: `bookings.${i}.chart_of_account_id`,
        message: accountId ? 'no such chart of account' : 'is required (the supplier has no default account)',
      });
      continue;
    }
    rows.push({
      account_id: auth.accountId,
      incoming_invoice_id: invoice.id,
      chart_of_account_id: chart.id,
      cost_center: b.cost_center ?? null,
      // Wire amounts: the schema (PositiveAmount) allows two decimals and at most 10^11.
      amount: toCents(b.amount)!,
      tax_rate: b.tax_rate === undefined ? chart.tax_rate : rateIn(b.tax_rate)!,
      description: b.description ?? null,
    });
  }
  if (errors.length) throw new AppError('invalid_reference', errors[0]!.message, { errors });
  const sum = rows.reduce((s, r) => s + r.amount, 0);
  if (sum > Number(invoice.gross_total)) throw bookingSumError('bookings', sum, Number(invoice.gross_total));
  return rows;
}

async function loadBooking(db: Db, auth: AuthContext, invoiceId: number, bookingId: number) {
  const invoice = await repo.lockInvoice(db, auth.accountId, invoiceId);
  if (!invoice) throw notFound('Incoming invoice');
  await assertPeriodOpen(db, auth.accountId, `Incoming invoice ${invoiceId}`, invoice.date);
  const booking = await repo.findBooking(db, auth.accountId, invoiceId, bookingId);
  if (!booking) throw notFound('Booking');
  return { invoice, booking };
}

export function updateBooking(
  db: Db,
  auth: AuthContext,
  invoiceId: number,
  bookingId: number,
  body: BookingUpdate,
): Promise<BookingRow> {
  return transact(db, async (trx) => {
    const { invoice, booking } = await loadBooking(trx, auth, invoiceId, bookingId);
    let chartTaxRate: string | null | undefined;
    if (body.chart_of_account_id !== undefined)
      chartTaxRate = (await requireChartOfAccount(trx, auth.accountId, body.chart_of_account_id)).tax_rate;
    if (body.amount !== undefined) {
      const total = (await bookedCents(trx, auth.accountId, invoiceId, bookingId)) + toCents(body.amount)!;
      if (total > Number(invoice.gross_total))
        throw bookingSumError('amount', total, Number(invoice.gross_total));
    }
    const tax = body.tax_rate !== undefined ? rateIn(body.tax_rate) : chartTaxRate;
    const values = {
      chart_of_account_id: body.chart_of_account_id,
      cost_center: body.cost_center,
      amount: body.amount === undefined ? undefined : toCents(body.amount)!,
      tax_rate: tax,
      description: body.description,
    };
    // A PATCH that changes nothing keeps updated_at (shared rule: src/shared/changes.ts).
    if (changesNothing(booking, values)) return booking;
    await repo.updateBooking(trx, booking.id, { ...values, updated_at: nowIso() });
    await repo.updateInvoice(trx, auth.accountId, invoiceId, { updated_at: nowIso() });
    return (await repo.findBooking(trx, auth.accountId, invoiceId, bookingId))!;
  });
}

export function deleteBooking(db: Db, auth: AuthContext, invoiceId: number, bookingId: number) {
  return transact(db, async (trx) => {
    const { booking } = await loadBooking(trx, auth, invoiceId, bookingId);
    await repo.deleteBooking(trx, booking.id);
    await repo.updateInvoice(trx, auth.accountId, invoiceId, { updated_at: nowIso() });
  });
}
