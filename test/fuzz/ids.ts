/**
 * Which table an id names: by path parameter, and by the name of a body field or query filter.
 * The reference test fails on an id-shaped name this does not know, so a new one is seen.
 */

const BY_SEGMENT: Record<string, string> = {
  files: 'files',
  tasks: 'tasks',
  'incoming-invoices': 'incoming_invoices',
  'outgoing-invoices': 'outgoing_invoices',
  users: 'users',
  clients: 'clients',
  companies: 'companies',
  contacts: 'contacts',
  projects: 'projects',
  'user-group': 'user_groups',
  suppliers: 'suppliers',
  'chart-of-accounts': 'chart_of_accounts',
  webhooks: 'webhooks',
  offers: 'offers',
  payments: 'payments',
  dunnings: 'dunning_letters',
  efforts: 'efforts',
  exports: 'datev_exports',
  'payment-accounts': 'payment_accounts',
  'bank-statements': 'bank_statements',
  'bank-transactions': 'bank_transactions',
  'bank-csv-profiles': 'bank_csv_profiles',
  'incoming-mailboxes': 'incoming_mailboxes',
  sepa: 'sepa_runs',
  'sepa-mandates': 'sepa_mandates',
};

export function pathParamTable(path: string, param: string): string {
  if (param === 'bookingId') return 'incoming_invoice_bookings';
  if (param === 'delivery_id') return 'webhook_deliveries';
  // OAuth grants: string ids in oauth_store, no account column (no pool: an id of nothing).
  // A date, not an id: the base rates have no other tenant's row to try.
  if (param === 'valid_from') return 'dunning_base_rates';
  // A month, not an id: the locks are the account's own.
  if (param === 'period') return 'accounting_period_locks';
  if (param === 'grant_id') return 'oauth_store';
  if (param === 'user_id') return 'users';
  if (path.startsWith('/tasks/comments/')) return 'task_comments';
  const table = BY_SEGMENT[path.split('/')[1]!];
  if (!table) throw new Error(`no table known for path parameter ${param} of ${path}`);
  return table;
}

const BY_FIELD: Record<string, string> = {
  project_id: 'projects',
  phase_id: 'project_phases',
  milestone_id: 'project_milestones',
  epic_id: 'project_epics',
  assignee_id: 'users',
  user_id: 'users',
  task_id: 'tasks',
  supplier_id: 'suppliers',
  chart_of_account_id: 'chart_of_accounts',
  client_id: 'clients',
  contact_id: 'contacts',
  company_id: 'companies',
  credited_invoice_id: 'outgoing_invoices',
  portfolio_id: 'portfolios',
  project_group_id: 'project_groups',
  project_group_ids: 'project_groups',
  master_id: 'outgoing_invoices',
  incoming_invoice_id: 'incoming_invoices',
  outgoing_invoice_id: 'outgoing_invoices',
  payment_account_id: 'payment_accounts',
  effort_ids: 'efforts',
  statement_id: 'bank_statements',
};

/** The table a reference field names, or undefined when the name is not known here. */
export function fieldTable(opKey: string, field: string): string | undefined {
  if (field === 'invoice_id' || field === 'credit_id')
    return /incoming-invoice/.test(opKey) ? 'incoming_invoices' : 'outgoing_invoices';
  return BY_FIELD[field];
}
