/**
 * The front door of companies for other modules (contacts): the company a contact may be
 * attached to, the substring search over the CRM tables (contacts search their own rows and
 * companies by name with it, in one statement) and the builder of CRM import sections.
 */

export { crmItem, crmSection, Str } from './companies.import.js';
export { idsContaining } from './companies.repository.js';
export { attachableCompany } from './companies.service.js';
