/** The front door of contacts for the import format (src/import/sections.ts). */
export { contactsSection } from './contacts.import.js';
