import type { Db } from '../../db/index.js';
import { type AuthContext, hasScopePrefix } from '../../shared/tokens.js';
import * as account from '../account/account.service.js';
import * as chart from '../chart-of-accounts/chart-of-accounts.service.js';
import * as clients from '../clients/clients.service.js';
import * as companies from '../companies/companies.service.js';
import * as contacts from '../contacts/contacts.service.js';
import * as customFields from '../custom-fields/custom-fields.service.js';
import * as dunning from '../dunning/dunning.service.js';
import * as efforts from '../efforts/efforts.service.js';
import * as files from '../files/files.service.js';
import * as incoming from '../incoming-invoices/incoming-invoices.service.js';
import { getMailMessage } from '../mail/mail.public.js';
import * as offers from '../offers/offers.service.js';
import * as invoices from '../outgoing-invoices/invoices.service.js';
import * as payments from '../payments/payments.service.js';
import * as projects from '../projects/projects.service.js';
import * as suppliers from '../suppliers/suppliers.service.js';
import * as comments from '../tasks/comments.service.js';
import * as tasks from '../tasks/tasks.service.js';
import * as groups from '../user-group/user-group.service.js';
import * as users from '../users/users.service.js';
import * as webhooks from '../webhooks/webhooks.service.js';

type Load = (db: Db, auth: AuthContext, id: number) => Promise<unknown>;

/**
 * Every kind the feed serves: the scopes its `GET` needs (all of them) and how that `GET`
 * reads it, through the owning module's service, so an entry's `data` is exactly what the
 * resource's own `GET` answers the same token (full or basic client, user, …).
 *
 * Efforts, custom fields and payment accounts have only a list: their `data` is the record as
 * that list shows it to the token (an `admin` effort only with `efforts:extended:read`).
 */
export const KINDS: Record<string, { scopes: string[]; load: Load }> = {
  client: {
    scopes: [],
    load: async (db, auth, id) => {
      const row = await clients.getClient(db, auth, id);
      return hasScopePrefix(auth, 'client:') ? clients.toClientFull(row) : clients.toClientBasic(row);
    },
  },
  company: {
    scopes: ['contact-data:read'],
    load: async (db, auth, id) => companies.toCompany(await companies.getCompany(db, auth, id)),
  },
  contact: {
    scopes: ['contact-data:read'],
    load: async (db, auth, id) => contacts.toContact(await contacts.getContact(db, auth, id)),
  },
  project: { scopes: [], load: projects.getProject },
  task: { scopes: ['task-management:read'], load: tasks.getTask },
  comment: { scopes: ['task-management:read'], load: comments.getComment },
  effort: { scopes: ['efforts:read'], load: efforts.getEffort },
  offer: { scopes: ['offer:read'], load: offers.getOffer },
  outgoing_invoice: {
    scopes: ['outgoing-invoice:read'],
    // A plan (master) is a row of the same table, read at /outgoing-invoices/master/{id}.
    load: async (db, auth, id) => {
      try {
        return await invoices.getInvoice(db, auth, id);
      } catch (err) {
        if ((err as { code?: string }).code !== 'not_found') throw err;
        return invoices.getMaster(db, auth, id);
      }
    },
  },
  incoming_invoice: {
    scopes: ['incoming-invoice:read'],
    load: async (db, auth, id) => incoming.presentOne(db, auth, await incoming.getInvoice(db, auth, id)),
  },
  payment: { scopes: ['payments:read'], load: payments.getPayment },
  payment_account: { scopes: ['payments:read'], load: payments.getPaymentAccount },
  chart_of_account: { scopes: ['chart-of-accounts:read'], load: chart.getChartOfAccount },
  custom_field: { scopes: ['integration'], load: customFields.getDefinition },
  supplier: {
    scopes: ['incoming-invoice:read'],
    load: async (db, auth, id) => suppliers.toSupplier(await suppliers.getSupplier(db, auth, id)),
  },
  file: { scopes: [], load: async (db, auth, id) => files.toFileData(await files.getFile(db, auth, id)) },
  user: { scopes: [], load: users.getUser },
  user_group: { scopes: ['user_group:read'], load: groups.getGroup },
  // Beyond the specification like its GET: for tokens of an administrator (403 otherwise,
  // so such entries are left out).
  account_profile: {
    scopes: ['account:read'],
    load: async (db, auth) => {
      await account.assertAccountAdmin(db, auth.accountId, auth.userId);
      return account.getAccountProfile(db, auth.accountId);
    },
  },
  // Beyond the specification (issue 38): the e-mails sent for invoices.
  mail_message: { scopes: ['outgoing-invoice:read'], load: getMailMessage },
  // Beyond the specification (issue 39): dunning letters.
  dunning: {
    scopes: ['dunning:read'],
    load: async (db, auth, id) => dunning.toLetter(await dunning.getLetter(db, auth, id)),
  },
  webhook: {
    scopes: ['integration'],
    load: async (db, auth, id) => webhooks.toWebhook(await webhooks.getWebhook(db, auth, id)),
  },
};

/** The kinds a token may read: those whose every scope it holds. */
export const readableKinds = (auth: AuthContext): string[] =>
  Object.keys(KINDS).filter((k) => KINDS[k]!.scopes.every((s) => auth.scopes.has(s)));
