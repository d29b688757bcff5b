import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import { accountLogoRoutes, accountRoutes } from './account/account.routes.js';
import { bankingRoutes, bankStatementUploadRoutes } from './banking/banking.routes.js';
import { billingRoutes } from './billing/billing.routes.js';
import { changesRoutes } from './changes/changes.routes.js';
import { chartOfAccountsRoutes } from './chart-of-accounts/chart-of-accounts.routes.js';
import { clientsRoutes } from './clients/clients.routes.js';
import { companiesRoutes } from './companies/companies.routes.js';
import { contactsRoutes } from './contacts/contacts.routes.js';
import { customFieldsRoutes } from './custom-fields/custom-fields.routes.js';
import { dunningRoutes } from './dunning/dunning.routes.js';
import { effortsRoutes } from './efforts/efforts.routes.js';
import { exportsRoutes } from './exports/exports.routes.js';
import { filesRoutes } from './files/files.routes.js';
import { incomingInvoicesRoutes } from './incoming-invoices/incoming-invoices.routes.js';
import { incomingMailboxesRoutes } from './incoming-mailboxes/incoming-mailboxes.routes.js';
import { integrationRoutes } from './integration/integration.routes.js';
import { mailRoutes } from './mail/mail.routes.js';
import { grantsRoutes } from './oauth/grants.routes.js';
import { oauthRoutes } from './oauth/oauth.routes.js';
import { offersRoutes } from './offers/offers.routes.js';
import { invoicesRoutes } from './outgoing-invoices/invoices.routes.js';
import { invoicePdf } from './outgoing-invoices/pdf.service.js';
import { incomingPaymentsRoutes } from './payments/incoming-payments.routes.js';
import { paymentsRoutes } from './payments/payments.routes.js';
import { projectsRoutes } from './projects/projects.routes.js';
import { searchRoutes } from './search/search.routes.js';
import { sepaMandateRoutes, sepaRoutes } from './sepa/sepa.routes.js';
import { settingsRoutes } from './settings/settings.routes.js';
import { suppliersRoutes } from './suppliers/suppliers.routes.js';
import { commentsRoutes } from './tasks/comments.routes.js';
import { tasksRoutes } from './tasks/tasks.routes.js';
import { userGroupRoutes } from './user-group/user-group.routes.js';
import { usersRoutes } from './users/users.routes.js';
import { webhooksRoutes } from './webhooks/webhooks.routes.js';

/**
 * Modules with upload routes, in a scope of their own with the multipart parser: elsewhere a
 * multipart body is a 415 like any other non-JSON body, and other routes do not carry the
 * parser's per-request clean-up hook.
 */
async function uploadModules(scope: FastifyInstance): Promise<void> {
  // One file per request, capped; the handler streams it (see files.service receiveUpload).
  await scope.register(multipart, {
    limits: { fileSize: scope.config.uploadLimit, files: 1, fields: 50, fieldSize: 1024 * 1024, parts: 60 },
  });
  await scope.register(filesRoutes);
  await scope.register(tasksRoutes);
  await scope.register(commentsRoutes);
  await scope.register(incomingInvoicesRoutes);
  await scope.register(invoicesRoutes);
  await scope.register(accountLogoRoutes);
  await scope.register(bankStatementUploadRoutes);
}

/** Every resource module, registered under the API prefix. One line per module. */
export async function registerModules(api: FastifyInstance): Promise<void> {
  await api.register(uploadModules);
  await api.register(oauthRoutes);
  await api.register(usersRoutes);
  await api.register(accountRoutes);
  await api.register(clientsRoutes);
  await api.register(companiesRoutes);
  await api.register(contactsRoutes);
  await api.register(settingsRoutes);
  await api.register(integrationRoutes);
  await api.register(grantsRoutes);
  await api.register(projectsRoutes);
  await api.register(effortsRoutes);
  await api.register(userGroupRoutes);
  await api.register(customFieldsRoutes);
  await api.register(suppliersRoutes);
  await api.register(chartOfAccountsRoutes);
  await api.register(incomingPaymentsRoutes);
  await api.register(webhooksRoutes);
  await api.register(incomingMailboxesRoutes);
  await api.register(offersRoutes);
  await api.register(paymentsRoutes);
  await api.register(bankingRoutes);
  await api.register(sepaRoutes);
  await api.register(searchRoutes);
  await api.register(sepaMandateRoutes);
  await api.register(changesRoutes);
  await api.register(mailRoutes);
  await api.register(billingRoutes);
  // The export's Belegbilder are the PDFs outgoing invoices serve (which check the period lock).
  await api.register(exportsRoutes, { invoicePdf });
  await api.register(dunningRoutes);
}
