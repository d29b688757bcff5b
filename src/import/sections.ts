import { companiesSection } from '../modules/companies/companies.import.js';
import { contactsSection } from '../modules/contacts/contacts.import.js';
import type { ImportSection } from './context.js';
import { clientsSection, userGroupsSection, usersSection } from './core.sections.js';

/**
 * The sections of the import format, in the order they run: a section may refer by key to
 * records of any section above it. Modules add theirs here.
 */
export const SECTIONS: ImportSection[] = [
  usersSection,
  userGroupsSection,
  clientsSection,
  companiesSection,
  contactsSection,
];
