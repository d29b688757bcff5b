import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import type { Db } from '../src/db/index.js';
import { createIntegration } from '../src/modules/integration/integration.service.js';

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
export const RESULTS_DIR = join(BENCH_DIR, 'results');

export interface Metric {
  metric: string;
  value: number;
  unit: string;
  note?: string;
}

export interface BenchReport {
  name: string;
  date: string;
  environment: Record<string, string | number>;
  results: Metric[];
}

export function environment(): Record<string, string | number> {
  return { node: process.version, platform: `${process.platform}-${process.arch}` };
}

export async function writeReport(report: BenchReport): Promise<void> {
  await mkdir(RESULTS_DIR, { recursive: true });
  await writeFile(join(RESULTS_DIR, `${report.name}.json`), `${JSON.stringify(report, null, 2)}\n`);
}

/** A text file beside the reports (e.g. a README table). */
export async function writeText(file: string, text: string): Promise<void> {
  await mkdir(RESULTS_DIR, { recursive: true });
  await writeFile(join(RESULTS_DIR, file), text);
}

/** The 1-minute load average, which tells how busy the machine was with other work. */
export const machineLoad = (): string => loadavg()[0]!.toFixed(1);

export function markdown(report: BenchReport): string {
  const rows = report.results.map((r) => `| ${r.metric} | ${r.value} | ${r.unit} | ${r.note ?? ''} |`);
  return [
    `### ${report.name}`,
    '',
    '| metric | value | unit | note |',
    '|---|---:|---|---|',
    ...rows,
    '',
  ].join('\n');
}

/**
 * The bearer token the benches call the API with: a new integration named `bench` holding
 * `scopes`, of the account's first admin (of the only account when `accountId` is left out).
 */
export async function benchToken(db: Db, scopes: string[], accountId?: number): Promise<string> {
  const { access_token } = await createIntegration(db, { name: 'bench', scopes, accountId });
  return access_token;
}

/**
 * Calls the API of an app in this process (`app.inject`) with `token`: the answer, or an error
 * naming the request when its status is 300 or more.
 */
export function caller(app: FastifyInstance, token: string) {
  return async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) => {
    const res = await app.inject({
      method,
      url: `/api/v1${url}`,
      headers: { authorization: `Bearer ${token}` },
      ...(payload ? { payload } : {}),
    });
    if (res.statusCode >= 300)
      throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    return res;
  };
}

export type Caller = ReturnType<typeof caller>;

/** Starts a TypeScript entry in a child process and resolves once it prints `LISTENING <port>`. */
export function startChild(
  entry: string,
  env: Record<string, string>,
): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(BENCH_DIR, entry)], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /LISTENING (\d+)/.exec(buf);
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.on('exit', (code) => reject(new Error(`${entry} exited with ${code}`)));
  });
}

/**
 * The arguments `npm start` gives node (package.json: `exec node <flags> src/server.ts`), the
 * entry as an absolute path: the benchmarks run the service with the same flags.
 */
export function startArguments(): string[] {
  const root = join(BENCH_DIR, '..');
  const start: string = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.start;
  const words = start.trim().split(/\s+/);
  const args = words.slice(words.indexOf('node') + 1);
  if (args.at(-1) !== 'src/server.ts') throw new Error(`npm start is not 'node … src/server.ts': ${start}`);
  return [...args.slice(0, -1), join(root, 'src', 'server.ts')];
}

/**
 * Starts the service as `npm start` runs it (its node flags, src/server.ts, any WORKERS) on a
 * free port and resolves once every server process listens (it reports so over the IPC channel).
 */
export function startService(env: Record<string, string>): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    // BENCH_SERVICE_NODE_ARGS: e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile the service alone.
    const nodeArgs = process.env.BENCH_SERVICE_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
    const child = spawn(process.execPath, [...nodeArgs, ...startArguments()], {
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        SEED_DEMO: 'false',
        LOG_LEVEL: 'warn',
        RUN_WORKER: 'false',
        ...env,
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.on('message', (m: { ready?: boolean; port?: number }) => {
      if (m.ready) resolve({ child, port: m.port! });
    });
    child.on('exit', (code) => reject(new Error(`the service exited with ${code}`)));
  });
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const done = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await done;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/** Seconds each scenario is measured (`BENCH_SECONDS`, default 8), after 3 s of warm-up. */
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);

/**
 * Connections of the load generator: 50, as the tables of docs/performance.md are measured.
 * `BENCH_CONN` changes it for diagnosis only (whether a scenario is bound by latency or by CPU:
 * a latency-bound one gains from more connections).
 */
const CONNECTIONS = Number(process.env.BENCH_CONN ?? 50);
if (!Number.isSafeInteger(CONNECTIONS) || CONNECTIONS < 1) throw new Error('BENCH_CONN: a whole number ≥ 1');

/**
 * Measures SECONDS at CONNECTIONS connections, after 3 s of the same load to warm the JIT and
 * caches. `afterWarmup` runs between the two (see `analyzeWithoutAutovacuum`).
 */
export async function load(opts: autocannon.Options, afterWarmup?: () => Promise<void>): Promise<LoadResult> {
  await autocannon({ connections: CONNECTIONS, duration: 3, ...opts });
  await afterWarmup?.();
  const r = await autocannon({ connections: CONNECTIONS, duration: SECONDS, ...opts });
  return {
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
  };
}

/**
 * The bare Fastify route (child-bare.ts) in a process of its own, kept running through a
 * benchmark, after 3 s of load: `besideBare` warms only the scenario, so without this the first
 * scenario would be compared with a route still being compiled.
 */
export async function startBare(): Promise<{ url: string; stop(): Promise<void> }> {
  const bare = await startChild('child-bare.ts', {});
  const url = `http://127.0.0.1:${bare.port}/bare`;
  await autocannon({ connections: CONNECTIONS, duration: 3, url });
  return { url, stop: () => stopChild(bare.child) };
}

/** A scenario's result and the bare route's, measured side by side (`besideBare`). */
export interface Beside {
  result: LoadResult;
  bare: LoadResult;
}

/** Slices of a side-by-side measurement: SECONDS of each, cut into this many turns. */
const SLICES = 4;

/** How `besideBare` measures, for a report's environment. */
export const SIDE_BY_SIDE = `${SECONDS} s of each scenario and ${SECONDS} s of the bare route, in turns of ${SECONDS / SLICES} s (lib.ts besideBare)`;

/** The bare route's mean rate over a run: the mean of its rates beside each scenario. */
export const meanBareRate = (measured: readonly Beside[]): number =>
  Math.round(measured.reduce((a, b) => a + b.bare.rps, 0) / measured.length);

/**
 * Measures a scenario and the bare route side by side: after 3 s of warm-up (the scenario's;
 * `afterWarmup` runs after it), the two take turns, SECONDS / SLICES at a time, SECONDS each
 * in all. Rates are requests over seconds summed over the slices; p50 is the slices' median,
 * p99 their highest.
 *
 * Why: the machine's speed moved by up to 1.8× within one run and 2× within minutes. Against
 * a bare route measured once before and once after the run, a scenario measured in a fast
 * minute read high and one in a slow minute low; slices of 2 s measure both across the same
 * minutes.
 */
export async function besideBare(
  bareUrl: string,
  opts: autocannon.Options,
  afterWarmup?: () => Promise<void>,
): Promise<Beside> {
  await autocannon({ connections: CONNECTIONS, duration: 3, ...opts });
  await afterWarmup?.();
  const slice = SECONDS / SLICES;
  const bare: autocannon.Result[] = [];
  const it: autocannon.Result[] = [];
  for (let i = 0; i < SLICES; i++) {
    bare.push(await autocannon({ connections: CONNECTIONS, duration: slice, url: bareUrl }));
    it.push(await autocannon({ connections: CONNECTIONS, duration: slice, ...opts }));
  }
  return { result: summed(it), bare: summed(bare) };
}

function summed(slices: autocannon.Result[]): LoadResult {
  const sum = (f: (r: autocannon.Result) => number) => slices.reduce((a, r) => a + f(r), 0);
  const p50s = slices.map((r) => r.latency.p50).sort((a, b) => a - b);
  return {
    rps: Math.round(sum((r) => r.requests.total) / sum((r) => r.duration)),
    p50: p50s[Math.floor((p50s.length - 1) / 2)]!,
    p99: Math.max(...slices.map((r) => r.latency.p99)),
    errors: sum((r) => r.errors + r.timeouts),
    non2xx: sum((r) => r.non2xx),
  };
}

/** The bodies of the write scenarios (writes.bench.ts, focus.ts): the same requests in both. */
export const WRITE_BODIES = {
  '/clients': () => ({ name: 'Bench client', email: 'new@bench.example', country_code: 'DE' }),
  '/tasks': (ids: { projectId: number }) => ({ project_id: ids.projectId, name: 'Bench task' }),
  '/outgoing-invoices': (ids: { clientId: number }) => ({
    client_id: ids.clientId,
    title: 'Bench invoice',
    line_items: [1, 2, 3].map((i) => ({
      title: `Position ${i}`,
      quantity: i,
      unit: 'h',
      unit_price: 95.5,
      tax_rate: 19,
    })),
  }),
};

/**
 * What autovacuum would do for tables that a write scenario grows from nothing: ANALYZE them
 * after the warm-up — only when the server runs without autovacuum (docs/operations.md requires
 * it on; the benchmark machines' server has it off). Without it the statistics still say "empty":
 * PostgreSQL then keeps the plan of a foreign-key check that scans the whole table (each line
 * of a new invoice checks its invoice), measured at a third of the rate of the same build on
 * connections planned after the table had grown. An ANALYZE invalidates such plans, as
 * autovacuum's would after the first few dozen rows.
 */
export async function analyzeWithoutAutovacuum(url: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ autovacuum: string }>('show autovacuum');
    if (rows[0]?.autovacuum !== 'on') await c.query('analyze');
  } finally {
    await c.end();
  }
}
