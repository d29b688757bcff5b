/** Every scope the specification names, in its order. */
export const ALL_SCOPES = [
  'user:read',
  'client:read',
  'client:write',
  'task-management:read',
  'task-management:write',
  'efforts:read',
  'efforts:extended:read',
  'contact-data:read',
  'contact-data:write',
  'offer:read',
  'outgoing-invoice:read',
  'outgoing-invoice:write',
  'outgoing-invoice:upload',
  'outgoing-invoice:book',
  'outgoing-invoice:force-delete',
  'incoming-invoice:read',
  'incoming-invoice:write',
  'chart-of-accounts:read',
  'chart-of-accounts:write',
  'payments:read',
  'payments:write',
  'user_group:read',
  'integration',
  // Beyond the specification (issue 13): the company profile, for an admin user behind the token.
  'account:read',
  'account:write',
  // Beyond the specification (issue 37): writing the work (efforts, projects, offers, rates).
  'efforts:write',
  'efforts:extended:write',
  'project:write',
  'offer:write',
  'user:write',
  // Beyond the specification (issue 41): the DATEV export and the period lock.
  'accounting:export',
  // Beyond the specification (issue 40): bank accounts, statements and matching them.
  'banking:read',
  'banking:write',
  // Beyond the specification (issue 39): payment reminders and dunning letters.
  'dunning:read',
  'dunning:write',
  // Beyond the specification (issue 38): e-mailing booked invoices to their clients.
  'outgoing-invoice:send',
  // Beyond the specification (issue 38): e-mailing offers to their clients.
  'offer:send',
] as const;
export type Scope = (typeof ALL_SCOPES)[number];

/**
 * The `user-profile:` scopes: they widen `GET /users/{id}` to the full record of the current
 * user only (the specification's rule). Integrations may be registered for others of the form
 * `user-profile:<name>`; these are the ones with a description of their own.
 */
export const USER_PROFILE_SCOPES = ['user-profile:read'] as const;

/**
 * Every scope in plain words, one line each: the consent page lists them, and the console and
 * the CLI reuse them. English; the words say what an app may do, not how the API names it.
 */
export const SCOPE_DESCRIPTIONS: Record<Scope | (typeof USER_PROFILE_SCOPES)[number], string> = {
  'user:read': 'See the users of your account with their full details',
  'client:read': 'See clients',
  'client:write': 'Create, change and archive clients',
  'task-management:read': 'See projects, tasks and comments',
  'task-management:write': 'Create and change tasks and comments',
  'efforts:read': 'See recorded efforts (time)',
  'efforts:extended:read': 'See the efforts of administrators too',
  'contact-data:read': 'See contacts and companies',
  'contact-data:write': 'Create, change and archive contacts and companies',
  'offer:read': 'See offers',
  'outgoing-invoice:read': 'See outgoing invoices and their PDFs',
  'outgoing-invoice:write': 'Create and change outgoing invoices and invoice plans',
  'outgoing-invoice:upload': 'Upload invoices made elsewhere',
  'outgoing-invoice:book': 'Book outgoing invoices (give them their final number)',
  'outgoing-invoice:force-delete': 'Delete outgoing invoices, booked ones too',
  'incoming-invoice:read': 'See incoming invoices and suppliers',
  'incoming-invoice:write': 'Create and change incoming invoices and suppliers',
  'chart-of-accounts:read': 'See the chart of accounts and its bookings',
  'chart-of-accounts:write': 'Book incoming invoices to accounts',
  'payments:read': 'See payments and payment accounts',
  'payments:write': 'Record payments',
  'user_group:read': 'See user groups and their members',
  integration: 'Manage webhooks and see custom fields of this app',
  'account:read': 'See the company profile (address, tax and bank details, invoice settings)',
  'account:write': 'Change the company profile that invoices print',
  'efforts:write': 'Record, change and delete your own time',
  'efforts:extended:write': 'Record and change the time of other users, and administrative time',
  'project:write': 'Create, change and archive projects and their teams',
  'offer:write': 'Create, change, accept and decline offers',
  'user:write': 'Set the hourly and cost rates of users (administrators only)',
  'accounting:export': 'Export the books to DATEV for your tax adviser and lock exported months for good',
  'banking:read': 'See bank statements, bank transactions and how they were matched',
  'banking:write': 'Import bank statements, match bank transactions to invoices and manage bank accounts',
  'dunning:read': 'See dunning levels, base rates and dunning letters',
  'dunning:write': 'Change dunning levels and base rates, run dunning, cancel and send dunning letters',
  'outgoing-invoice:send': 'E-mail booked invoices and credits to your clients',
  'offer:send': 'E-mail offers to your clients',
  'user-profile:read': 'See your own full user profile',
};

/** A scope in plain words; a `user-profile:` scope without its own line gets a general one. */
export function describeScope(scope: string): string {
  const known = (SCOPE_DESCRIPTIONS as Record<string, string>)[scope];
  if (known) return known;
  if (scope.startsWith('user-profile:')) return `See your own user profile (${scope.slice(13)})`;
  return scope;
}
