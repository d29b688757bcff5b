// Long fuzz runs: `npm run fuzz -- --requests 20000 --seed 7 [--db sqlite|postgres] [--verbose]`.
// The same generator and checks as test/fuzz.test.ts, with a summary instead of assertions.
// PostgreSQL uses TEST_DATABASE_URL's server (a fresh database, dropped afterwards).
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.js';
import { describeOffences, failureClasses, fuzz } from '../test/fuzz/runner.js';
import { buildWorld } from '../test/fuzz/world.js';
import { createAccount, createTestDb, testConfig } from '../test/helpers.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '5000' },
    seed: { type: 'string', default: String(Date.now() % 1_000_000) },
    db: { type: 'string', default: process.env.TEST_DATABASE_URL ? 'postgres' : 'sqlite' },
    verbose: { type: 'boolean', default: false },
  },
});
const requests = Number(values.requests);
const seed = Number(values.seed);
const kind = values.db === 'postgres' ? 'postgres' : 'sqlite';
if (!Number.isInteger(requests) || requests < 1 || !Number.isInteger(seed)) {
  console.error('usage: npm run fuzz -- [--requests N] [--seed S] [--db sqlite|postgres] [--verbose]');
  process.exit(2);
}
if (kind === 'postgres' && !process.env.TEST_DATABASE_URL) {
  console.error('--db postgres needs TEST_DATABASE_URL (postgres://…/any-database)');
  process.exit(2);
}

const handle = await createTestDb(kind);
const app = await buildApp(testConfig(), { db: handle, logger: false });
try {
  await app.ready();
  const main = await createAccount(handle.db);
  const other = await createAccount(handle.db);
  const world = await buildWorld(app, handle.db, { main: main.accountId, other: other.accountId });
  const started = Date.now();
  const summary = await fuzz(app, handle.db, world, app.swagger(), {
    requests,
    seed,
    progress: (n) => process.stderr.write(`\r${n}/${requests}`),
  });
  process.stderr.write('\n');
  const count = (k: string) => summary.offences.filter((o) => o.kind === k).length;
  console.log(`database          ${kind}`);
  console.log(`seed              ${seed}`);
  console.log(
    `requests          ${summary.requests} over ${summary.operations} operations in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  console.log(
    `statuses          ${Object.entries(summary.byStatus)
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ')}`,
  );
  console.log(`5xx               ${count('5xx')}`);
  console.log(`non-problem       ${count('not problem+json') + count('not an OAuth error')}`);
  console.log(`cross-tenant      ${count("another tenant's id accepted")}`);
  console.log(
    `partial writes    ${count('partial write')} (${summary.checkedBatches} batches of refused requests compared)`,
  );
  if (summary.offences.length) {
    console.log('\nfailure classes:');
    for (const [cls, n] of [...failureClasses(summary.offences)].sort((a, b) => b[1] - a[1]))
      console.log(`  ${n} × ${cls}`);
    if (values.verbose) console.log(`\n${describeOffences(summary.offences, 500)}`);
  }
  process.exitCode = summary.offences.length ? 1 : 0;
} finally {
  await app.close();
  await handle.destroy();
}
