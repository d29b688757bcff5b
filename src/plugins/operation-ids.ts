import { API_PREFIX } from '../config.js';

/**
 * Every operation's `operationId`, derived in one place from its method and path so that a new
 * route gets a readable one without anybody writing it down: generated clients name their
 * functions after these (`listClients`, `bookOutgoingInvoice`), so they must never change once
 * published (test/openapi-operation-ids.snapshot.txt holds the published ones).
 *
 * The rule, on the path's fixed segments (`/outgoing-invoices/{id}/book` → outgoing-invoices, book):
 * - a last segment that is a verb (`restore`, `book`, `rotate-secret`) names the action:
 *   `restoreClient`, `bookOutgoingInvoice`, `rotateWebhookSecret`;
 * - GET on an id: `get` + the singular nouns (`getTaskComment`); GET on a plural noun: `list` +
 *   the nouns (`listProjectTasks`); on a singular noun: `get` (`getAccountProfile`);
 * - POST `create`, PATCH `update`, PUT `set`, DELETE `delete`, each + the singular nouns.
 * OVERRIDES name the operations where the rule reads badly.
 */

/** Last path segments that are actions rather than resources (their first word is the verb). */
const VERBS = new Set([
  'attach',
  'book',
  'cancel',
  'check',
  'detach',
  'disable',
  'enable',
  'generate',
  'ping',
  'resend',
  'restore',
  'revoke',
  'rotate',
  'send',
  'test',
  'verify',
]);

/** `METHOD path` (path as in the document, without the API prefix) → operationId. */
const OVERRIDES: Record<string, string> = {
  'GET /whoami': 'getCurrentUser',
  'GET /users/full': 'listUsersFull',
  'GET /clients/full': 'listClientsFull',
  'DELETE /clients/{id}': 'deleteClient',
  'POST /tasks/{id}/upload': 'uploadTaskFile',
  'POST /tasks/comments/{id}/upload': 'uploadTaskCommentFile',
  'GET /outgoing-invoices/master': 'listOutgoingInvoiceMasters',
  'GET /outgoing-invoices/master/{id}': 'getOutgoingInvoiceMaster',
  'POST /outgoing-invoices/external': 'uploadExternalOutgoingInvoice',
  'DELETE /outgoing-invoices/{id}/force': 'forceDeleteOutgoingInvoice',
  'POST /outgoing-invoices/{id}/generate': 'generateRecurringPlanInvoices',
  'POST /outgoing-invoices/{id}/plan-invoices': 'createPartialPlanInvoice',
  'POST /outgoing-invoices/recurring-plans': 'createRecurringPlan',
  'POST /outgoing-invoices/partial-plans': 'createPartialPlan',
  'GET /outgoing-invoices/number-series': 'listOutgoingInvoiceNumberSeries',
  'GET /outgoing-invoices/{id}/pdf': 'downloadOutgoingInvoicePdf',
  'GET /outgoing-invoices/{id}/xml': 'downloadOutgoingInvoiceXml',
  'GET /offers/{id}/pdf': 'downloadOfferPdf',
  'GET /sepa/credit-transfers/{id}/file': 'downloadSepaCreditTransferFile',
  'GET /sepa/direct-debits/{id}/file': 'downloadSepaDirectDebitFile',
  'PUT /projects/{id}/team/{user_id}': 'setProjectTeamMember',
  'DELETE /projects/{id}/team/{user_id}': 'removeProjectTeamMember',
  'POST /offers/{id}/accept': 'acceptOffer',
  'POST /offers/{id}/decline': 'declineOffer',
  'GET /users/{id}/rates': 'getUserRates',
  'PUT /users/{id}/rates': 'setUserRates',
  'POST /outgoing-invoices/from-efforts': 'createOutgoingInvoiceFromEfforts',
  'GET /reports/uninvoiced': 'getUninvoicedReport',
  'GET /files/{id}/download': 'downloadFile',
  'POST /exports/datev': 'createDatevExport',
  'GET /exports/{id}/download': 'downloadExport',
  'GET /accounting/periods': 'listAccountingPeriods',
  'POST /accounting/periods/{period}/lock': 'lockAccountingPeriod',
  'GET /reports/vat-return': 'getVatReturnReport',
  'GET /reports/oss': 'getOssReport',
  'GET /reports/receivables-ageing': 'getReceivablesAgeingReport',
  'GET /reports/payables-ageing': 'getPayablesAgeingReport',
  'GET /dunning/levels': 'getDunningLevels',
  'PUT /dunning/levels': 'setDunningLevels',
  'POST /dunning/run': 'runDunning',
  'GET /dunnings/{id}/pdf': 'downloadDunningPdf',
  'POST /dunnings/{id}/invoice-charges': 'invoiceDunningCharges',
  'POST /payments/outgoing-invoice': 'createOutgoingInvoicePayment',
  'POST /payments/outgoing-invoice-credit': 'settleOutgoingInvoiceWithCredit',
  'POST /payments/incoming-invoice': 'createIncomingInvoicePayment',
  'POST /payments/incoming-invoice-credit': 'settleIncomingInvoiceWithCredit',
  'GET /settings/countries': 'listCountries',
  'GET /user-group': 'listUserGroups',
  'GET /chart-of-accounts/{id}': 'getChartOfAccountsAccount',
  'GET /chart-of-accounts/bookings': 'listChartOfAccountsBookings',
  'GET /integration/grants': 'listIntegrationGrants',
  'POST /oauth/token': 'issueOAuthToken',
  'GET /ready': 'getReadiness',
  'POST /bank-statements': 'importBankStatement',
  'POST /bank-transactions/{id}/match': 'matchBankTransaction',
  'POST /bank-transactions/{id}/unmatch': 'unmatchBankTransaction',
  'POST /bank-transactions/{id}/ignore': 'ignoreBankTransaction',
};

const pascal = (segment: string) =>
  segment
    .split(/[-_]/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');

/** The last word of a segment in the singular (`line-items` → `line-item`, `companies` → `company`). */
function singular(segment: string): string {
  return segment.replace(/([a-z]+)$/, (word) => {
    if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
    if (/(ss|us|is|series)$/.test(word)) return word;
    if (/(ches|shes|xes|sses)$/.test(word)) return word.slice(0, -2);
    return word.endsWith('s') ? word.slice(0, -1) : word;
  });
}

const isPlural = (segment: string) => singular(segment) !== segment;

/** The operationId of `method` on `url` (a Fastify route URL, `:id` or `{id}` parameters). */
export function operationIdFor(method: string, url: string): string {
  const path = url.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}').replace(/\/+$/, '');
  const relative = path.startsWith(`${API_PREFIX}/`) ? path.slice(API_PREFIX.length) : path;
  const verb = method.toUpperCase();
  const override = OVERRIDES[`${verb} ${relative}`];
  if (override) return override;

  const segments = relative.split('/').filter(Boolean);
  const endsWithParam = segments.at(-1)?.startsWith('{') ?? false;
  const nouns = segments.filter((s) => !s.startsWith('{'));
  const last = nouns.at(-1) ?? 'root';
  const [firstWord, ...restWords] = last.split('-');
  if (!endsWithParam && VERBS.has(firstWord!) && nouns.length > 1) {
    const object = nouns.slice(0, -1).map((s) => pascal(singular(s)));
    return firstWord + object.join('') + pascal(restWords.join('-'));
  }
  const allSingular = nouns.map((s) => pascal(singular(s))).join('');
  switch (verb) {
    case 'GET':
      if (endsWithParam || !isPlural(last)) return `get${allSingular}`;
      return `list${nouns
        .slice(0, -1)
        .map((s) => pascal(singular(s)))
        .join('')}${pascal(last)}`;
    case 'POST':
      return `create${allSingular}`;
    case 'PATCH':
      return `update${allSingular}`;
    case 'PUT':
      return `set${allSingular}`;
    case 'DELETE':
      return `delete${allSingular}`;
    default:
      return `${verb.toLowerCase()}${allSingular}`;
  }
}
