// `npm run bench`: runs every bench/*.bench.ts in turn, then writes results/latest.json and
// results/latest.md from their reports.
import { spawnSync } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BENCH_DIR, type BenchReport, markdown, RESULTS_DIR } from './lib.js';

const only = process.argv.slice(2);
const files = (await readdir(BENCH_DIR)).filter((f) => f.endsWith('.bench.ts')).sort();
const reports: BenchReport[] = [];
const failed: string[] = [];
for (const f of files) {
  const name = f.replace(/\.bench\.ts$/, '');
  if (only.length && !only.includes(name)) continue;
  console.log(`\n== ${f}`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(BENCH_DIR, f)], { stdio: 'inherit' });
  if (r.status !== 0) {
    failed.push(f);
    continue;
  }
  try {
    reports.push(JSON.parse(await readFile(join(RESULTS_DIR, `${name}.json`), 'utf8')));
  } catch {
    failed.push(`${f} (no report)`);
  }
}
await writeFile(
  join(RESULTS_DIR, 'latest.json'),
  `${JSON.stringify({ date: new Date().toISOString(), reports }, null, 2)}\n`,
);
const md = [
  `# Benchmark results (${new Date().toISOString().slice(0, 10)})`,
  '',
  ...reports.map(markdown),
].join('\n');
await writeFile(join(RESULTS_DIR, 'latest.md'), md);
console.log(`\n${md}`);
if (failed.length) {
  console.error(`failed: ${failed.join(', ')}`);
  process.exitCode = 1;
}
