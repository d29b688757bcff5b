/**
 * The front door of banking (issue 40): statement import, bank transactions and matching.
 * Banking builds on payments (payment accounts, the ledger) and outgoing invoices; nothing
 * imports banking but the composition root.
 */
export { bankingRoutes, bankStatementUploadRoutes } from './banking.routes.js';
