/**
 * The front door of suppliers for other modules: incoming invoices check and match their
 * supplier through it; the import reads its section here. Suppliers depend on the chart of
 * accounts (a supplier's default account) and on nothing above them.
 */
export { suppliersSection } from './suppliers.import.js';
export { findSupplier, findSupplierBySeller } from './suppliers.service.js';
