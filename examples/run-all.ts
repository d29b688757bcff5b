// Runs every example in turn against API_URL / API_TOKEN (CI: packages/sdk's examples:service
// starts a service for them); stops at the first that fails.
import { spawnSync } from 'node:child_process';

for (const example of process.argv.slice(2).length ? process.argv.slice(2) : ['invoice.ts', 'webhook.ts', 'sync.ts', 'bill-month.ts']) {
  console.log(`\n== examples/${example}`);
  const run = spawnSync('npx', ['tsx', new URL(example, import.meta.url).pathname], { stdio: 'inherit' });
  if (run.status !== 0) {
    console.error(`examples/${example} failed (${run.status ?? run.signal})`);
    process.exit(1);
  }
}
