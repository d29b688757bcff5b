/**
 * The module graph of src/ and the boundary rules of issue 17 item 1, measured the same way by
 * test/architecture.test.ts (which enforces them) and by hand:
 *
 *   node --import tsx scripts/module-graph.ts [--root DIR] [--json]
 *
 * Rules:
 * - A module (src/modules/<name>/) is entered only through its front door: its `*.service.ts`
 *   and `*.public.ts` files. Another module importing any other file of it (repository, tables,
 *   routes, schemas, helpers) is an "internal import".
 * - No cycles between modules (every import counts, type-only ones too: a dependency is one).
 * - Plugins (src/plugins/), shared code (src/shared/) and the database layer (src/db/) import
 *   no module.
 * - Services and repositories import no HTTP plugin (src/plugins/) at run time; type-only
 *   imports (the `AuthContext` a service takes) are erased and allowed.
 * - src/cli/, src/web/ and src/import/ enter modules only through their front doors too.
 * - A repository names only its own module's tables (see tableModule).
 * Composition roots (src/modules/index.ts, src/app.ts, the processes) wire routes together and
 * are exempt. test/architecture.test.ts enforces every rule.
 *
 * It also counts Kysely query building outside repositories, the other "before/after" figure of
 * the issue. Where SQL may be (issue 17 item 2), by file name:
 * - a repository, `*.repository.ts`: plain functions taking `db` or a transaction first;
 * - a read model, `*.read-model.ts`: a clearly named read across modules' tables (a page's
 *   figures, what a document prints);
 * - infrastructure, src/db/ (migrator, health, writability, planner statistics) and src/shared/
 *   (the generic paging, search, list-count and events-outbox helpers): query builders that serve
 *   every module and own no resource, listed apart;
 * - migrations (src/db/migrations/) are left out.
 * Query building anywhere else is "SQL outside repositories". Parsing uses the TypeScript compiler's parser only (no type checking), so a run
 * over all of src/ takes well under a second.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

export interface ImportEdge {
  /** Importing file, relative to the root, with forward slashes. */
  from: string;
  /** Imported file (resolved to its .ts source), relative to the root. */
  to: string;
  /** `import type` / `export type`: erased at run time. */
  typeOnly: boolean;
}

export interface SqlUse {
  file: string;
  /** selectFrom / insertInto / updateTable / deleteFrom / … calls and sql`` templates. */
  queries: number;
}

export interface TableUse {
  file: string;
  /** Table named as the first argument of a query builder or a join (alias stripped). */
  table: string;
}

export interface ModuleGraph {
  files: string[];
  edges: ImportEdge[];
  sql: SqlUse[];
  /** Every table a file names in a query. */
  tableUses: TableUse[];
  /** Table → the file whose `interface Database` declares it. */
  tableOwners: Map<string, string>;
}

/**
 * Tables declared in src/db/core.tables.ts (the auth plugin and every module need them) still
 * have an owning module: the one whose service changes them.
 */
const CORE_TABLE_OWNERS: Record<string, string> = {
  accounts: 'account',
  users: 'users',
  user_groups: 'user-group',
  user_group_members: 'user-group',
  integrations: 'integration',
  access_tokens: 'integration',
};

/** The module owning a table, if any (tables of src/db and src/shared infrastructure have none). */
export function tableModule(graph: ModuleGraph, table: string): string | undefined {
  const owner = graph.tableOwners.get(table);
  return CORE_TABLE_OWNERS[table] ?? (owner === undefined ? undefined : moduleOf(owner));
}

/** Calls whose first argument names a table. */
const TABLE_ARGUMENTS = new Set([
  'selectFrom',
  'insertInto',
  'replaceInto',
  'updateTable',
  'deleteFrom',
  'mergeInto',
  'innerJoin',
  'leftJoin',
  'rightJoin',
  'fullJoin',
]);

const QUERY_BUILDERS = new Set([
  'selectFrom',
  'selectNoFrom',
  'insertInto',
  'replaceInto',
  'updateTable',
  'deleteFrom',
  'mergeInto',
]);

function listTs(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...listTs(path));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

const posix = (p: string): string => p.split(sep).join('/');

/** `./x.js` → `x.ts`, `./dir` → `dir/index.ts`; undefined for packages and non-TS files. */
function resolveSpecifier(fromAbs: string, spec: string, known: Set<string>): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = resolve(dirname(fromAbs), spec);
  const candidates = [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts'), base];
  return candidates.find((c) => known.has(c));
}

/** Parses every .ts file under `<root>/src` for its imports and its query building. */
export function analyze(root = process.cwd()): ModuleGraph {
  const srcAbs = resolve(root, 'src');
  const filesAbs = listTs(srcAbs).sort();
  const known = new Set(filesAbs);
  const edges: ImportEdge[] = [];
  const sql: SqlUse[] = [];
  const tableUses: TableUse[] = [];
  const tableOwners = new Map<string, string>();
  for (const abs of filesAbs) {
    const from = posix(relative(root, abs));
    const source = ts.createSourceFile(abs, readFileSync(abs, 'utf8'), ts.ScriptTarget.Latest, false);
    const add = (spec: string, typeOnly: boolean): void => {
      const target = resolveSpecifier(abs, spec, known);
      if (target) edges.push({ from, to: posix(relative(root, target)), typeOnly });
    };
    let queries = 0;
    const visit = (node: ts.Node): void => {
      if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
        const clause = node.importClause;
        // `import { type A, type B }` is erased as well as `import type { A, B }`.
        const allTypeNames =
          clause?.namedBindings !== undefined &&
          ts.isNamedImports(clause.namedBindings) &&
          clause.name === undefined &&
          clause.namedBindings.elements.length > 0 &&
          clause.namedBindings.elements.every((e) => e.isTypeOnly);
        add(node.moduleSpecifier.text, clause?.isTypeOnly === true || allTypeNames);
      } else if (
        ts.isExportDeclaration(node) &&
        node.moduleSpecifier &&
        ts.isStringLiteral(node.moduleSpecifier)
      ) {
        add(node.moduleSpecifier.text, node.isTypeOnly);
      } else if (
        ts.isCallExpression(node) &&
        node.expression.kind === ts.SyntaxKind.ImportKeyword &&
        node.arguments[0] &&
        ts.isStringLiteral(node.arguments[0])
      ) {
        add(node.arguments[0].text, false);
      } else if (
        ts.isImportTypeNode(node) &&
        ts.isLiteralTypeNode(node.argument) &&
        ts.isStringLiteral(node.argument.literal)
      ) {
        add(node.argument.literal.text, true);
      } else if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        QUERY_BUILDERS.has(node.expression.name.text)
      ) {
        queries++;
      }
      if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        TABLE_ARGUMENTS.has(node.expression.name.text) &&
        node.arguments[0] &&
        ts.isStringLiteralLike(node.arguments[0])
      ) {
        tableUses.push({ file: from, table: node.arguments[0].text.split(/\s+as\s+/)[0]!.trim() });
      } else if (
        ts.isInterfaceDeclaration(node) &&
        node.name.text === 'Database' &&
        !from.startsWith('src/db/migrations/')
      ) {
        for (const m of node.members) {
          if (m.name && (ts.isIdentifier(m.name) || ts.isStringLiteral(m.name)))
            tableOwners.set(m.name.text, from);
        }
      } else if (ts.isTaggedTemplateExpression(node)) {
        const tag = node.tag;
        const name = ts.isIdentifier(tag)
          ? tag.text
          : ts.isPropertyAccessExpression(tag) && ts.isIdentifier(tag.expression)
            ? tag.expression.text
            : '';
        if (name === 'sql') queries++;
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    if (queries > 0) sql.push({ file: from, queries });
  }
  return { files: filesAbs.map((f) => posix(relative(root, f))), edges, sql, tableUses, tableOwners };
}

/** `src/modules/<name>/…` → name; undefined outside the modules (and for src/modules/index.ts). */
export function moduleOf(file: string): string | undefined {
  const m = /^src\/modules\/([^/]+)\/./.exec(file);
  return m?.[1];
}

/** The files other modules may import. */
export function isFrontDoor(file: string): boolean {
  return /\.(service|public)\.ts$/.test(file);
}

const isLowerLayer = (file: string): boolean => /^src\/(plugins|shared|db)\//.test(file);
const isServiceOrRepository = (file: string): boolean =>
  moduleOf(file) !== undefined && /\.(service|public|repository)\.ts$/.test(file);
const isPlugin = (file: string): boolean => file.startsWith('src/plugins/');

/** Where a file that builds queries stands (see the rule at the top). */
export function sqlPlace(
  file: string,
): 'repository' | 'read-model' | 'infrastructure' | 'migration' | 'outside' {
  if (file.startsWith('src/db/migrations/')) return 'migration';
  if (file.endsWith('.repository.ts')) return 'repository';
  if (file.endsWith('.read-model.ts')) return 'read-model';
  if (/^src\/(db|shared)\//.test(file)) return 'infrastructure';
  return 'outside';
}

/** One violation, named the way the allowlist in test/architecture.test.ts names it. */
export const edgeName = (e: ImportEdge): string => `${e.from} -> ${e.to}`;

/** Strongly connected components of size > 1 (Tarjan), each sorted, the list sorted. */
export function cyclesOf(nodes: string[], next: Map<string, Set<string>>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const strong = (v: string): void => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) as number, idx.get(w) as number));
      }
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of [...nodes].sort()) if (!idx.has(v)) strong(v);
  return out.sort((a, b) => a.join().localeCompare(b.join()));
}

export interface Report {
  /** Module → module imports of a non-front-door file. */
  internalImports: ImportEdge[];
  /** Distinct (importing module, imported module) pairs among internalImports. */
  internalPairs: string[];
  /** Every module → module dependency, front door or not. */
  modulePairs: string[];
  /** Groups of modules that depend on each other in a circle. */
  cycles: string[][];
  /** For each cycle, the module pairs inside it (to see which edge to cut). */
  cycleEdges: string[];
  /** src/plugins, src/shared, src/db importing a module. */
  lowerLayerImports: ImportEdge[];
  /** Services and repositories importing an HTTP plugin at run time. */
  serviceHttpImports: ImportEdge[];
  /** src/cli, src/web, src/import reaching past a module's front door (reported only). */
  outsideInternalImports: ImportEdge[];
  /** Files building queries that are neither repositories, read models nor infrastructure. */
  sqlOutsideRepositories: SqlUse[];
  /** Read models (`*.read-model.ts`): allowed, counted. */
  sqlReadModels: SqlUse[];
  /** src/db and src/shared query builders serving every module: allowed, counted. */
  sqlInfrastructure: SqlUse[];
  /**
   * A module's repository naming a table another module declares (`repository -> table`):
   * cross-module reads belong in the owner's front door or a read model. Tables of src/db and
   * src/shared infrastructure (the events outbox, counters, idempotency) belong to no module.
   */
  foreignTables: string[];
}

export function report(graph: ModuleGraph): Report {
  const internalImports: ImportEdge[] = [];
  const lowerLayerImports: ImportEdge[] = [];
  const serviceHttpImports: ImportEdge[] = [];
  const outsideInternalImports: ImportEdge[] = [];
  const next = new Map<string, Set<string>>();
  const modules = new Set<string>();
  for (const e of graph.edges) {
    const a = moduleOf(e.from);
    const b = moduleOf(e.to);
    if (a) modules.add(a);
    if (b) modules.add(b);
    if (a && b && a !== b) {
      if (!next.has(a)) next.set(a, new Set());
      next.get(a)?.add(b);
      if (!isFrontDoor(e.to)) internalImports.push(e);
    }
    if (b && isLowerLayer(e.from)) lowerLayerImports.push(e);
    if (isServiceOrRepository(e.from) && isPlugin(e.to) && !e.typeOnly) serviceHttpImports.push(e);
    if (b && /^src\/(cli|web|import)\//.test(e.from) && !isFrontDoor(e.to)) outsideInternalImports.push(e);
  }
  const uniq = (xs: string[]): string[] => [...new Set(xs)].sort();
  const cycles = cyclesOf([...modules], next);
  const cycleEdges = cycles.flatMap((c) =>
    c.flatMap((a) => [...(next.get(a) ?? [])].filter((b) => c.includes(b)).map((b) => `${a} -> ${b}`)),
  );
  return {
    internalImports,
    internalPairs: uniq(internalImports.map((e) => `${moduleOf(e.from)} -> ${moduleOf(e.to)}`)),
    modulePairs: uniq([...next].flatMap(([a, bs]) => [...bs].map((b) => `${a} -> ${b}`))),
    cycles,
    cycleEdges: uniq(cycleEdges),
    lowerLayerImports,
    serviceHttpImports,
    outsideInternalImports,
    sqlOutsideRepositories: graph.sql.filter((s) => sqlPlace(s.file) === 'outside'),
    sqlReadModels: graph.sql.filter((s) => sqlPlace(s.file) === 'read-model'),
    sqlInfrastructure: graph.sql.filter((s) => sqlPlace(s.file) === 'infrastructure'),
    foreignTables: uniq(
      graph.tableUses
        .filter((u) => sqlPlace(u.file) === 'repository' && moduleOf(u.file) !== undefined)
        .filter((u) => {
          const owner = tableModule(graph, u.table);
          return owner !== undefined && owner !== moduleOf(u.file);
        })
        .map((u) => `${u.file} -> ${u.table}`),
    ),
  };
}

function main(argv: string[]): void {
  const rootAt = argv.indexOf('--root');
  const root = rootAt >= 0 ? resolve(argv[rootAt + 1] ?? '.') : process.cwd();
  const r = report(analyze(root));
  if (argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
    return;
  }
  const count = (uses: SqlUse[]): string =>
    `${uses.reduce((n, s) => n + s.queries, 0)} queries in ${uses.length} files`;
  const lines = [
    `module pairs (any import):                ${r.modulePairs.length}`,
    `module pairs past the front door:         ${r.internalPairs.length} (${r.internalImports.length} file imports)`,
    `cycles between modules:                   ${r.cycles.length}${r.cycles.map((c) => ` [${c.join(' ⇄ ')}]`).join('')}`,
    `plugins/shared/db importing a module:     ${r.lowerLayerImports.length}`,
    `services/repositories importing a plugin: ${r.serviceHttpImports.length}`,
    `cli/web/import past a front door:         ${r.outsideInternalImports.length}`,
    `SQL outside repositories:                 ${count(r.sqlOutsideRepositories)}`,
    `SQL in read models (allowed):             ${count(r.sqlReadModels)}`,
    `SQL in db/shared (allowed):               ${count(r.sqlInfrastructure)}`,
    `repositories naming another module's table: ${r.foreignTables.length}`,
    '',
    'pairs past the front door:',
    ...r.internalPairs.map((p) => `  ${p}`),
    'cycle edges:',
    ...r.cycleEdges.map((p) => `  ${p}`),
    'internal imports:',
    ...r.internalImports.map((e) => `  ${edgeName(e)}${e.typeOnly ? ' (type)' : ''}`),
    'plugins/shared/db importing a module:',
    ...r.lowerLayerImports.map((e) => `  ${edgeName(e)}${e.typeOnly ? ' (type)' : ''}`),
    'services/repositories importing a plugin:',
    ...r.serviceHttpImports.map((e) => `  ${edgeName(e)}`),
    'cli/web/import past a front door:',
    ...r.outsideInternalImports.map((e) => `  ${edgeName(e)}${e.typeOnly ? ' (type)' : ''}`),
    'SQL outside repositories:',
    ...r.sqlOutsideRepositories.map((s) => `  ${s.file}: ${s.queries}`),
    'SQL in read models:',
    ...r.sqlReadModels.map((s) => `  ${s.file}: ${s.queries}`),
    'SQL in db/shared infrastructure:',
    ...r.sqlInfrastructure.map((s) => `  ${s.file}: ${s.queries}`),
    "repositories naming another module's table:",
    ...r.foreignTables.map((t) => `  ${t}`),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main(process.argv.slice(2));
