/**
 * The front door of payments for other modules: the import reads its sections here (payment
 * accounts, and the outgoing invoices section, which payments builds by handing its payment
 * writer to the invoice import). Payments build on outgoing and incoming invoices, never the
 * reverse.
 */

export {
  createPayment as recordIncomingPayment,
  removeIncomingPayments,
} from './incoming-payments.service.js';
export { outgoingInvoicesSection, paymentAccountsSection } from './payments.import.js';
/** For bank statements (issue 40): the payment accounts and the ledger writes a match makes. */
export type { PaymentAccountRow } from './payments.repository.js';
export { findPaymentAccount, paymentAccountsByIban } from './payments.repository.js';
export {
  getPaymentAccount,
  type PaymentToRecord,
  recordPayment,
  recordPayments,
  removeOutgoingPayments,
} from './payments.service.js';
