import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyze, edgeName, report } from '../scripts/module-graph.js';

/**
 * The module boundaries of issue 17 item 1 (rules and how they are measured: scripts/module-graph.ts):
 * modules enter each other only through their front door (`*.service.ts`, `*.public.ts`), no
 * cycles between modules, plugins/shared/db import no module, services and repositories import
 * no HTTP plugin.
 *
 * The lists below are the violations that existed when the rule came (each by name). They may
 * only shrink: a new violation fails, and so does an entry that no longer happens (delete its
 * line, so that it cannot come back unnoticed).
 */

/** `importer -> imported`, both relative to the repository root. */
const ALLOWED_INTERNAL_IMPORTS = [
  'src/modules/chart-of-accounts/chart-of-accounts.routes.ts -> src/modules/incoming-invoices/incoming-invoices.mappers.ts',
  'src/modules/companies/companies.import.ts -> src/modules/custom-fields/custom-fields.schemas.ts',
  'src/modules/companies/companies.schemas.ts -> src/modules/custom-fields/custom-fields.schemas.ts',
  'src/modules/contacts/contacts.import.ts -> src/modules/companies/companies.import.ts',
  'src/modules/contacts/contacts.import.ts -> src/modules/custom-fields/custom-fields.schemas.ts',
  'src/modules/contacts/contacts.repository.ts -> src/modules/companies/contact-data.ts',
  'src/modules/contacts/contacts.routes.ts -> src/modules/companies/contact-data.ts',
  'src/modules/contacts/contacts.schemas.ts -> src/modules/companies/contact-data.ts',
  'src/modules/contacts/contacts.schemas.ts -> src/modules/custom-fields/custom-fields.schemas.ts',
  'src/modules/contacts/contacts.service.ts -> src/modules/companies/contact-data.ts',
  'src/modules/efforts/efforts.import.ts -> src/modules/projects/import-refs.ts',
  'src/modules/incoming-invoices/bookings.service.ts -> src/modules/chart-of-accounts/chart-of-accounts.repository.ts',
  'src/modules/incoming-invoices/bookings.service.ts -> src/modules/suppliers/suppliers.repository.ts',
  'src/modules/incoming-invoices/incoming-invoices.schemas.ts -> src/modules/chart-of-accounts/chart-of-accounts.schemas.ts',
  'src/modules/incoming-invoices/incoming-invoices.service.ts -> src/modules/suppliers/suppliers.repository.ts',
  'src/modules/incoming-invoices/jobs/extraction-jobs.worker.ts -> src/modules/files/files.repository.ts',
  'src/modules/offers/offers.import.ts -> src/modules/outgoing-invoices/line-items.ts',
  'src/modules/offers/offers.routes.ts -> src/modules/files/files.schemas.ts',
  'src/modules/offers/offers.routes.ts -> src/modules/outgoing-invoices/line-items.ts',
  'src/modules/offers/offers.schemas.ts -> src/modules/outgoing-invoices/line-items.ts',
  'src/modules/offers/offers.service.ts -> src/modules/outgoing-invoices/invoices.pdf.ts',
  'src/modules/offers/offers.service.ts -> src/modules/outgoing-invoices/invoices.repository.ts',
  'src/modules/offers/offers.service.ts -> src/modules/outgoing-invoices/line-items.ts',
  'src/modules/offers/offers.tables.ts -> src/modules/outgoing-invoices/invoices.tables.ts',
  'src/modules/outgoing-invoices/invoices.import.ts -> src/modules/payments/payments.repository.ts',
  'src/modules/outgoing-invoices/invoices.routes.ts -> src/modules/files/files.schemas.ts',
  'src/modules/payments/incoming-payments.service.ts -> src/modules/incoming-invoices/incoming-invoices.mappers.ts',
  'src/modules/payments/incoming-payments.service.ts -> src/modules/incoming-invoices/incoming-invoices.repository.ts',
  'src/modules/payments/payments.schemas.ts -> src/modules/outgoing-invoices/line-items.ts',
  'src/modules/payments/payments.service.ts -> src/modules/outgoing-invoices/invoices.domain.ts',
  'src/modules/payments/payments.service.ts -> src/modules/outgoing-invoices/invoices.repository.ts',
  'src/modules/payments/payments.service.ts -> src/modules/outgoing-invoices/invoices.support.ts',
  'src/modules/payments/payments.service.ts -> src/modules/outgoing-invoices/invoices.views.ts',
  'src/modules/projects/projects.routes.ts -> src/modules/tasks/tasks.schemas.ts',
  'src/modules/projects/projects.schemas.ts -> src/modules/custom-fields/custom-fields.schemas.ts',
  'src/modules/suppliers/suppliers.service.ts -> src/modules/chart-of-accounts/chart-of-accounts.repository.ts',
  'src/modules/tasks/comments.service.ts -> src/modules/files/files.repository.ts',
  'src/modules/tasks/tasks.import.ts -> src/modules/projects/import-refs.ts',
  'src/modules/tasks/tasks.import.ts -> src/modules/projects/projects.repository.ts',
  'src/modules/tasks/tasks.routes.ts -> src/modules/clients/clients.schemas.ts',
  'src/modules/tasks/tasks.schemas.ts -> src/modules/custom-fields/custom-fields.schemas.ts',
  'src/modules/tasks/tasks.schemas.ts -> src/modules/files/files.schemas.ts',
  'src/modules/tasks/tasks.service.ts -> src/modules/files/files.repository.ts',
  'src/modules/tasks/tasks.service.ts -> src/modules/projects/projects.repository.ts',
  'src/modules/tasks/upload-route.ts -> src/modules/files/files.schemas.ts',
  'src/modules/user-group/user-group.schemas.ts -> src/modules/users/users.schemas.ts',
  // Landed during the session that brought this rule (issue 13), like offers.service's import of
  // the same file: the profile belongs behind a front door (account's service, or a public file).
];

const ALLOWED_LOWER_LAYER_IMPORTS = [
  'src/plugins/token-cache.ts -> src/modules/integration/integration.repository.ts',
];

const ALLOWED_SERVICE_HTTP_IMPORTS = [
  'src/modules/efforts/efforts.service.ts -> src/plugins/auth.ts',
  'src/modules/integration/integration.service.ts -> src/plugins/auth.ts',
  // Landed during the session that brought this rule (issue 13), like integration.service's:
  // token hashing and scope parsing belong in shared code, not in the auth plugin.
  'src/modules/integration/apps.service.ts -> src/plugins/auth.ts',
  'src/modules/outgoing-invoices/booking.service.ts -> src/plugins/errors.ts',
  'src/modules/users/passwords.service.ts -> src/plugins/auth.ts',
  'src/modules/users/users.service.ts -> src/plugins/auth.ts',
];

/** Each group of modules that depend on each other in a circle, sorted. */
const ALLOWED_CYCLES = [
  ['chart-of-accounts', 'incoming-invoices', 'suppliers'],
  ['outgoing-invoices', 'payments'],
  ['projects', 'tasks'],
];

const r = report(analyze(new URL('..', import.meta.url).pathname));

/** Both directions at once, so one run names every line to add to the code or remove here. */
function ratchet(actual: string[], allowed: string[], what: string): void {
  const now = new Set(actual);
  const listed = new Set(allowed);
  assert.equal(listed.size, allowed.length, `${what}: an entry is listed twice`);
  const added = [...now].filter((x) => !listed.has(x)).sort();
  const gone = [...listed].filter((x) => !now.has(x)).sort();
  assert.deepEqual(
    { new_violations: added, fixed_so_delete_from_list: gone },
    { new_violations: [], fixed_so_delete_from_list: [] },
    `${what}: new violations must go through the front door instead; fixed ones leave the list`,
  );
}

describe('module boundaries (issue 17)', () => {
  it('reports the counts', (t) => {
    t.diagnostic(
      `module pairs past a front door: ${r.internalPairs.length} (${r.internalImports.length} imports); ` +
        `cycles: ${r.cycles.length}; plugins/shared/db importing a module: ${r.lowerLayerImports.length}; ` +
        `services/repositories importing an HTTP plugin: ${r.serviceHttpImports.length}`,
    );
    // The analysis itself must see the tree: an empty graph would pass every rule below.
    assert.ok(r.modulePairs.length > 10, 'the module graph is empty: is the analysis broken?');
  });

  it('modules import each other only through their front doors', () => {
    ratchet(r.internalImports.map(edgeName), ALLOWED_INTERNAL_IMPORTS, 'imports past a front door');
  });

  it('no new cycles between modules', () => {
    ratchet(
      r.cycles.map((c) => c.join(' ⇄ ')),
      ALLOWED_CYCLES.map((c) => c.join(' ⇄ ')),
      'cycles',
    );
  });

  it('plugins, shared code and the database layer import no module', () => {
    ratchet(
      r.lowerLayerImports.map(edgeName),
      ALLOWED_LOWER_LAYER_IMPORTS,
      'lower layers importing a module',
    );
  });

  it('services and repositories import no HTTP plugin at run time', () => {
    ratchet(r.serviceHttpImports.map(edgeName), ALLOWED_SERVICE_HTTP_IMPORTS, 'services importing a plugin');
  });
});
