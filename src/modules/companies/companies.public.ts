/**
 * The front door of companies for other modules: the company a contact may be attached to,
 * the substring search over the CRM tables (contacts search their own rows and companies by
 * name with it, in one statement), the builder of CRM import sections and the companies
 * section of the import format (src/import/sections.ts).
 */
export { companiesSection, crmItem, crmSection, Str } from './companies.import.js';
export { idsContaining } from './companies.repository.js';
export { attachableCompany } from './companies.service.js';
