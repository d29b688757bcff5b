import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { analyze, edgeName, report } from '../scripts/module-graph.js';

/**
 * The module boundaries of issue 17 (rules and how they are measured: scripts/module-graph.ts):
 * modules enter each other only through their front door (`*.service.ts`, `*.public.ts`), no
 * cycles between modules, plugins/shared/db import no module, services and repositories import
 * no HTTP plugin, the CLI, the pages and the import go through front doors too, queries are
 * built only in repositories, read models and the db/shared infrastructure, and a repository
 * names only its own module's tables.
 *
 * Every crossing that existed when the rules came (46 imports in 22 module pairs, 3 cycles,
 * 80 queries outside repositories in 29 files, …) has been removed. A list below names an
 * exception by name; it may only shrink: a new violation fails, and so does an entry that no
 * longer happens (delete its line, so that it cannot come back unnoticed).
 */

/** Repositories reading a table of another module (`repository -> table`), with the reason. */
const ALLOWED_FOREIGN_TABLES: string[] = [];

const graph = analyze(new URL('..', import.meta.url).pathname);
const r = report(graph);

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
      `module pairs: ${r.modulePairs.length}; past a front door: ${r.internalPairs.length}; ` +
        `cycles: ${r.cycles.length}; queries outside repositories: ${r.sqlOutsideRepositories.length}; ` +
        `repositories naming another module's table: ${r.foreignTables.length}`,
    );
    // The analysis itself must see the tree: an empty graph would pass every rule below.
    assert.ok(r.modulePairs.length > 10, 'the module graph is empty: is the analysis broken?');
    assert.ok(r.sqlReadModels.length > 0 && r.sqlInfrastructure.length > 0, 'no queries seen: broken?');
  });

  it('modules import each other only through their front doors', () => {
    ratchet(r.internalImports.map(edgeName), [], 'imports past a front door');
  });

  it('the CLI, the pages and the import reach modules only through their front doors', () => {
    ratchet(r.outsideInternalImports.map(edgeName), [], 'cli/web/import past a front door');
  });

  it('no cycles between modules', () => {
    ratchet(
      r.cycles.map((c) => c.join(' ⇄ ')),
      [],
      'cycles',
    );
  });

  it('plugins, shared code and the database layer import no module', () => {
    ratchet(r.lowerLayerImports.map(edgeName), [], 'lower layers importing a module');
  });

  it('services and repositories import no HTTP plugin at run time', () => {
    ratchet(r.serviceHttpImports.map(edgeName), [], 'services importing a plugin');
  });

  it('queries are built only in repositories, read models and the db/shared infrastructure', () => {
    ratchet(
      r.sqlOutsideRepositories.map((s) => s.file),
      [],
      'SQL outside repositories',
    );
  });

  it("a repository names only its own module's tables", () => {
    ratchet(r.foreignTables, ALLOWED_FOREIGN_TABLES, "repositories naming another module's table");
  });
});

/** Every file under src/modules, as paths relative to it. */
function moduleFiles(): string[] {
  const root = new URL('../src/modules/', import.meta.url).pathname;
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(root, f));
}

describe('one home for business rules', () => {
  const files = moduleFiles();
  const domain = files.filter((f) => f.endsWith('.domain.ts'));

  it('business rules live in *.domain.ts files (no *.rules.ts or other homes)', () => {
    assert.ok(domain.length >= 3, 'no domain files found: is the scan broken?');
    assert.deepEqual(
      files.filter((f) => /\.(rules|policy|logic)\.ts$/.test(f)),
      [],
    );
  });

  it('a domain file is pure: no database, HTTP, file system or clock of its own', () => {
    // What a domain function needs comes in as arguments; it imports values only from other
    // domain files and the shared pure helpers (money, errors, dates).
    const impure =
      /^(kysely|fastify|pg|better-sqlite3|node:fs|node:fs\/promises|node:child_process)$|\.(repository|service|routes|read-model)\.js$|\/db\//;
    const valueImports = (text: string) =>
      [...text.matchAll(/^import\s+(?!type\b)[^;]*?from\s+'([^']+)'/gms)].map((m) => m[1]!);
    const offenders = domain.flatMap((f) =>
      valueImports(readFileSync(f, 'utf8'))
        .filter((spec) => impure.test(spec))
        .map((spec) => `${f} imports ${spec}`),
    );
    assert.deepEqual(offenders, []);
  });
});

describe('performance machinery in a place of its own', () => {
  it('modules reach the insert batching (src/db/insert-batch.ts) only through a *.create-batch.ts file', () => {
    // A service calls its module's create-batch file; the batching, the one-statement creates
    // and their fallbacks stay there, out of the everyday code.
    const users = graph.edges
      .filter((e) => e.to === 'src/db/insert-batch.ts' && e.from.startsWith('src/modules/'))
      .map((e) => e.from);
    assert.ok(users.length >= 3, 'no module uses the insert batching: is the scan broken?');
    assert.deepEqual(
      users.filter((f) => !f.endsWith('.create-batch.ts')),
      [],
    );
  });
});
