// `npm test`: every test/**/*.test.ts under Node's test runner, in a few processes instead of
// one per file.
//
// Why: a test process spends about 2.4 CPU-seconds before its first test (loading the
// TypeScript sources and the dependencies, and building the first app, whose schemas and code
// paths are cold), and `node --test` starts one per file: over a hundred files made that the
// largest single cost of a run. Here TEST_CONCURRENCY processes of `node --test` start at
// once and share one queue of the files, longest first (the durations of the previous run,
// kept in node_modules/.cache/test-durations.*.json, else those in
// scripts/test-durations.*.json; a file not seen yet counts as an average one): each process
// takes the next file when its last one is done, so they end within about one file of each
// other whatever the durations were, and the start-up is paid once per process. A file is
// claimed by creating a directory named after its place in the queue (atomic: only one
// process succeeds). Inside a process each file runs inside a suite named after the file, as
// it would alone (every file builds its own apps and databases, and restores what it changes).
//
//   node scripts/test-run.mjs                      every test file
//   node scripts/test-run.mjs test/a.test.ts ...   only these (files or folders; options such as
//                                                  --test-name-pattern=… go to node --test)
//   TEST_GROUPS=0 node scripts/test-run.mjs        one process per file, as `node --test` does
//
// TEST_CONCURRENCY (default 3: the test processes wait on timers, child processes and the
// database often enough that three keep two cores busy) sets how many processes run.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const LOADER = join(ROOT, 'scripts', 'ts-loader.mjs');
const REPORTER = join(ROOT, 'scripts', 'test-durations.reporter.mjs');
// Apart for SQLite alone and with PostgreSQL: with TEST_DATABASE_URL every suite runs twice.
const DURATIONS_FILE = `test-durations.${process.env.TEST_DATABASE_URL ? 'postgres' : 'sqlite'}.json`;
/** This machine's last run, and the seed committed for a fresh clone. */
const DURATIONS = join(ROOT, 'node_modules', '.cache', DURATIONS_FILE);
const SEED = join(ROOT, 'scripts', DURATIONS_FILE);
const CONCURRENCY = Number(process.env.TEST_CONCURRENCY ?? 3);
/** TEST_GROUPS=0: a process per file. */
const SHARED = process.env.TEST_GROUPS !== '0';

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return testFiles(path);
    return e.name.endsWith('.test.ts') ? [path] : [];
  });
}

// Options (--test-name-pattern=…, --test-only) go to `node --test`; the rest are files or folders.
const args = process.argv.slice(2);
const options = args.filter((a) => a.startsWith('--'));
const paths = args.filter((a) => !a.startsWith('--')).map((a) => resolve(a));
// The conformance tier (test/conformance, `npm run test:conformance`) needs material from
// outside the repository: it runs only when named.
const CONFORMANCE = join(ROOT, 'test', 'conformance');
const files = (paths.length ? paths : [join(ROOT, 'test')])
  .flatMap((p) =>
    statSync(p).isDirectory()
      ? testFiles(p).filter((f) => paths.length || !f.startsWith(CONFORMANCE + sep))
      : [p],
  )
  .sort();

/** Durations of a run on this machine, else of a run when the grouping was set up. */
const readJson = (file) => {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return {};
  }
};
const known = { ...readJson(SEED), ...readJson(DURATIONS) };
const name = (file) => relative(ROOT, file);
const seen = Object.values(known);
const average = seen.length ? seen.reduce((a, b) => a + b, 0) / seen.length : 3;
const weight = (file) => known[name(file)] ?? average;

const work = mkdtempSync(join(tmpdir(), 'test-run-'));
let entries;
let progress;
if (SHARED) {
  const queue = [...files].sort((a, b) => weight(b) - weight(a)).map((f) => [name(f), pathToFileURL(f).href]);
  const claims = join(work, 'claims');
  // Node's runner reports a test process's results when the process ends, minutes in: each
  // file appends a line here when it is done, and this process prints them as they come.
  progress = join(work, 'progress.log');
  writeFileSync(progress, '');
  mkdirSync(claims);
  entries = Array.from({ length: Math.min(CONCURRENCY, queue.length) }, (_, i) => {
    const entry = join(work, `process-${i + 1}.test.mjs`);
    // Each file's tests in a suite named after the file: a failure says where it is, and a
    // file that does not even load fails its own suite, not the process. A file is loaded only
    // when the one before it is done, as if it ran alone: what its suites compute as they are
    // declared (a timestamp, say) is as fresh when its tests run.
    writeFileSync(
      entry,
      `import { appendFileSync, mkdirSync } from 'node:fs';\n` +
        `import { after, describe } from 'node:test';\n` +
        `const queue = ${JSON.stringify(queue)};\n` +
        `const claim = (i) => { try { mkdirSync(${JSON.stringify(claims)} + '/' + i); return true; } catch { return false; } };\n` +
        `for (let i = 0; i < queue.length; i++) {\n` +
        `  if (!claim(i)) continue;\n` +
        `  const [name, url] = queue[i];\n` +
        `  const started = Date.now();\n` +
        `  const finished = () => appendFileSync(${JSON.stringify(progress)}, name + '\\t' + (Date.now() - started) + '\\n');\n` +
        `  await new Promise((done) =>\n` +
        `    describe(name, async () => {\n` +
        `      after(() => { finished(); done(); });\n` +
        `      await import(url).catch((err) => { done(); throw err; });\n` +
        `    }),\n` +
        `  );\n` +
        `}\n`,
    );
    return entry;
  });
} else entries = files;

const durationsOut = join(work, 'durations.json');
const child = spawn(
  process.execPath,
  [
    '--import',
    LOADER,
    '--test',
    `--test-concurrency=${CONCURRENCY}`,
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    `--test-reporter=${pathToFileURL(REPORTER).href}`,
    `--test-reporter-destination=${durationsOut}`,
    ...options,
    ...entries,
  ],
  { cwd: ROOT, stdio: 'inherit', env: { ...process.env, TEST_RUN_ROOT: ROOT } },
);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
let shown = 0;
let done = 0;
/** Prints the files finished since the last call: `[12/130] test/clients.test.ts 4.1 s`. */
function showProgress() {
  if (!progress) return;
  const lines = readFileSync(progress, 'utf8').split('\n').slice(0, -1);
  for (const line of lines.slice(shown)) {
    const [file, ms] = line.split('\t');
    process.stderr.write(`[${++done}/${files.length}] ${file} ${(Number(ms) / 1000).toFixed(1)} s\n`);
  }
  shown = lines.length;
}
const ticker = setInterval(showProgress, 250);
child.on('exit', (code, signal) => {
  clearInterval(ticker);
  showProgress();
  try {
    // A run filtered by name says nothing about how long the files take.
    if (options.some((o) => /^--test-(name-pattern|skip-pattern|only)/.test(o))) throw new Error('filtered');
    const measured = JSON.parse(readFileSync(durationsOut, 'utf8'));
    mkdirSync(dirname(DURATIONS), { recursive: true });
    writeFileSync(DURATIONS, `${JSON.stringify({ ...known, ...measured }, null, 1)}\n`);
  } catch {
    // no durations (a run stopped early, or filtered): keep the previous ones
  }
  rmSync(work, { recursive: true, force: true });
  process.exit(code ?? (signal ? 1 : 0));
});
