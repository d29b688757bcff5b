// The proof that the OpenAPI document declares every answer the service gives: run after the
// test suite (`npm test`), it reads what the collector in test/helpers.ts saw (method, route,
// status, problem code per answer, one file per test process under OPENAPI_COVERAGE_DIR) and
// fails when the document lacks one of those statuses or codes. The fix is to declare the
// answer (src/plugins/openapi-responses.ts), never to filter it out here.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';

const dir = process.argv[2] ?? process.env.OPENAPI_COVERAGE_DIR;
if (!dir) {
  console.error('usage: OPENAPI_COVERAGE_DIR=DIR tsx scripts/openapi-coverage.ts (or pass DIR)');
  process.exit(2);
}
let files: string[] = [];
try {
  files = readdirSync(dir).filter((f) => f.endsWith('.jsonl'));
} catch {
  // no directory: nothing was collected, reported below
}
if (files.length === 0) {
  console.error(`openapi coverage: the collector wrote nothing to ${dir} (is test/helpers.ts imported?)`);
  process.exit(1);
}

const observed = new Set<string>();
for (const f of files) {
  for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) if (line) observed.add(line);
}

const app = await buildApp(
  loadConfig({
    DATABASE_URL: ':memory:',
    LOG_LEVEL: 'silent',
    RUN_WORKER: 'false',
    RATE_LIMIT_PER_MINUTE: '60',
  }),
  { logger: false },
);
await app.ready();
// biome-ignore lint/suspicious/noExplicitAny: the document is plain JSON
const doc = app.swagger() as any;
await app.close();

type Op = { operationId: string; responses: Record<string, { 'x-problem-codes'?: string[] }> };
const missing = new Map<string, Set<string>>();
const operations = new Set<string>();
const pairs = new Set<string>();
for (const line of observed) {
  const [method, url, status, code] = JSON.parse(line) as [string, string, number, string];
  const path = url.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}').replace(/(.)\/$/, '$1');
  const op: Op | undefined = doc.paths[path]?.[method.toLowerCase()];
  if (!op) continue; // not a documented route (the web pages, /docs, routes a test made up)
  operations.add(op.operationId);
  pairs.add(`${op.operationId} ${status}`);
  const declared =
    op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`] ?? op.responses.default;
  const key = `${op.operationId} (${method} ${path})`;
  const gap = !declared
    ? `${status}${code ? ` ${code}` : ''}`
    : code && declared['x-problem-codes'] && !declared['x-problem-codes'].includes(code)
      ? `${status} ${code}`
      : undefined;
  if (gap) {
    if (!missing.has(key)) missing.set(key, new Set());
    missing.get(key)!.add(gap);
  }
}

let documented = 0;
for (const item of Object.values<Record<string, unknown>>(doc.paths)) documented += Object.keys(item).length;
console.log(
  `openapi coverage: ${operations.size} of ${documented} operations observed, ${pairs.size} (operation, status) pairs, from ${files.length} test processes`,
);
if (missing.size > 0) {
  console.error(
    'answers the tests saw that the OpenAPI document does not declare (add them to src/plugins/openapi-responses.ts):',
  );
  for (const [op, gaps] of [...missing].sort()) console.error(`  ${op}: ${[...gaps].sort().join(', ')}`);
  process.exit(1);
}
if (!process.argv.includes('--keep')) rmSync(dir, { recursive: true, force: true });
