/** The front door of offers for other modules: the import reads its section here. */
export { offersSection } from './offers.import.js';
/** Billing records the invoice made from an offer here (once; see offers.repository). */
export { claimInvoice as claimOfferInvoice } from './offers.repository.js';
