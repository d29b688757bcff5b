import type { Db } from '../../db/index.js';
import { AppError } from '../../shared/errors.js';
import { fromCents } from '../../shared/money.js';
import { orNotFound } from '../../shared/owned.js';
import type { AuthContext } from '../../shared/tokens.js';
import type { ChartBookingRow } from './bookings.read-model.js';
import * as bookings from './bookings.read-model.js';
import type { ChartOfAccountRow } from './chart-of-accounts.repository.js';
import * as repo from './chart-of-accounts.repository.js';
import type {
  BookingListQuery,
  BookingOut,
  ChartOfAccount,
  ChartOfAccountListQuery,
} from './chart-of-accounts.schemas.js';

export type { ChartOfAccountRow } from './chart-of-accounts.repository.js';

/** A stored tax rate (decimal string) as the wire number. */
export const rateOut = (rate: string | null): number | null => (rate === null ? null : Number(rate));

export function toChartOfAccount(r: ChartOfAccountRow): ChartOfAccount {
  return {
    id: r.id,
    number: r.number,
    name: r.name,
    type: r.type as ChartOfAccount['type'],
    tax_rate: rateOut(r.tax_rate),
    active: Boolean(r.active),
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

export const listChartOfAccounts = (db: Db, auth: AuthContext, q: ChartOfAccountListQuery) =>
  repo.listChartOfAccounts(db, auth.accountId, q);

/** One account of the chart, as `GET /chart-of-accounts/{id}` answers it. */
export const getChartOfAccount = async (db: Db, auth: AuthContext, id: number): Promise<ChartOfAccount> =>
  toChartOfAccount(orNotFound(await repo.findChartOfAccount(db, auth.accountId, id), 'Chart of account'));

/** The account of the chart with this id, or undefined (for references from other modules). */
export const findChartOfAccount = (
  db: Db,
  accountId: number,
  id: number,
): Promise<ChartOfAccountRow | undefined> => repo.findChartOfAccount(db, accountId, id);

/** The account a `chart_of_account_id` names; a 422 `invalid_reference` when there is none. */
export async function requireChartOfAccount(
  db: Db,
  accountId: number,
  id: number,
): Promise<ChartOfAccountRow> {
  const row = await repo.findChartOfAccount(db, accountId, id);
  if (!row)
    throw new AppError('invalid_reference', 'chart_of_account_id: no such account', {
      errors: [{ field: 'chart_of_account_id', message: 'no such chart of account' }],
    });
  return row;
}

export const listBookings = (db: Db, auth: AuthContext, q: BookingListQuery) =>
  bookings.listBookings(db, auth.accountId, q);

export function toChartBooking(r: ChartBookingRow): BookingOut {
  return {
    id: r.id,
    incoming_invoice_id: r.incoming_invoice_id,
    chart_of_account_id: r.chart_of_account_id,
    cost_center: r.cost_center,
    amount: fromCents(r.amount),
    tax_rate: rateOut(r.tax_rate),
    description: r.description,
    date: r.date,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}
