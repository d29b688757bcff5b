import { chartOfAccountsSection } from '../modules/chart-of-accounts/chart-of-accounts.public.js';
import { clientsSection } from '../modules/clients/clients.public.js';
import { companiesSection } from '../modules/companies/companies.public.js';
import { contactsSection } from '../modules/contacts/contacts.public.js';
import { customFieldsSection } from '../modules/custom-fields/custom-fields.public.js';
import { effortsSection } from '../modules/efforts/efforts.public.js';
import { offersSection } from '../modules/offers/offers.public.js';
import { outgoingInvoicesSection, paymentAccountsSection } from '../modules/payments/payments.public.js';
import {
  portfoliosSection,
  projectGroupsSection,
  projectsSection,
} from '../modules/projects/projects.public.js';
import { suppliersSection } from '../modules/suppliers/suppliers.public.js';
import { tasksSection } from '../modules/tasks/tasks.public.js';
import { userGroupsSection } from '../modules/user-group/user-group.public.js';
import { usersSection } from '../modules/users/users.public.js';
import type { ImportSection } from './context.js';

/**
 * The sections of the import format, in the order they run: a section may refer by key to
 * records of any section above it. Modules add theirs here.
 */
export const SECTIONS: ImportSection[] = [
  usersSection,
  userGroupsSection,
  clientsSection,
  customFieldsSection,
  companiesSection,
  contactsSection,
  portfoliosSection,
  projectGroupsSection,
  projectsSection,
  tasksSection,
  effortsSection,
  paymentAccountsSection,
  offersSection,
  outgoingInvoicesSection,
  chartOfAccountsSection,
  suppliersSection,
];
