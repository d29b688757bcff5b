/**
 * The front door of the chart of accounts for other modules. The chart is a lower module:
 * suppliers and incoming invoices reference its accounts and use its tax-rate schema; it
 * imports neither of them (its booking list reads through bookings.read-model.ts). The import
 * reads its section here.
 */
export { chartOfAccountsSection } from './chart-of-accounts.import.js';
export { BookingFields, InvoiceDateRange, TaxRate } from './chart-of-accounts.schemas.js';
export {
  type ChartOfAccountRow,
  findChartOfAccount,
  rateOut,
  requireChartOfAccount,
} from './chart-of-accounts.service.js';
