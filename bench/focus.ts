// One write scenario, measured alone and repeatedly, for A/B comparisons on a busy machine:
// the bare route and the scenario alternate `--runs` times, and each row prints
// median / min / max of requests/s and of the share of the bare route measured beside it.
//
//   tsx bench/focus.ts --url postgres://postgres@127.0.0.1:5432/h7 --path /clients --runs 3
//
// `--url`: a PostgreSQL database (created if missing, migrated, emptied of nothing: a new
// account is made each run) or a SQLite file path. `--path`: /clients, /tasks or
// /outgoing-invoices (POSTed), or `GET /clients/:client` (the account's one client read). BENCH_SECONDS sets each measurement's length (default 8, after 3 s of
// warm-up), WORKERS the server processes.
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { importData } from '../src/import/index.js';
import { createIntegration } from '../src/modules/integration/integration.service.js';
import { cpuNow } from './cpu.js';
import {
  analyzeWithoutAutovacuum,
  type LoadResult,
  load,
  SECONDS,
  startChild,
  startService,
  stopChild,
  WRITE_BODIES,
} from './lib.js';

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    path: { type: 'string', default: '/clients' },
    runs: { type: 'string', default: '3' },
  },
});
const url = values.url ?? process.env.BENCH_DATABASE_URL;
if (!url) throw new Error('--url <postgres url or sqlite file> is required');

async function ensurePgDatabase(u: string) {
  const name = new URL(u).pathname.slice(1);
  const admin = new URL(u);
  admin.pathname = '/postgres';
  const c = new pg.Client({ connectionString: admin.toString() });
  await c.connect();
  try {
    const { rowCount } = await c.query('select 1 from pg_database where datname = $1', [name]);
    if (!rowCount) await c.query(`create database "${name.replaceAll('"', '""')}"`);
  } finally {
    await c.end();
  }
}

async function prepare() {
  if (url!.startsWith('postgres')) await ensurePgDatabase(url!);
  const handle = createDb(loadConfig({ DATABASE_URL: url! }).db);
  try {
    await migrateToLatest(handle.db);
    const { account_id } = await importData(handle.db, {
      account: { name: 'Focus' },
      users: [
        { email: `focus${Date.now()}@bench.example`, first_name: 'F', last_name: 'Ocus', role: 'admin' },
      ],
      clients: [{ key: 'c', name: 'Invoiced client' }],
      projects: [{ key: 'p', client: 'c', name: 'Focus project' }],
    });
    const client = await handle.db
      .selectFrom('clients')
      .select('id')
      .where('account_id', '=', account_id)
      .executeTakeFirstOrThrow();
    const project = await handle.db
      .selectFrom('projects')
      .select('id')
      .where('account_id', '=', account_id)
      .executeTakeFirstOrThrow();
    const { access_token } = await createIntegration(handle.db, {
      name: 'focus',
      scopes: ['client:read', 'client:write', 'task-management:write', 'outgoing-invoice:write'],
      accountId: account_id,
    });
    return { token: access_token, clientId: client.id, projectId: project.id };
  } finally {
    await handle.destroy();
  }
}

const bodies: Record<string, (ids: { clientId: number; projectId: number }) => object> = WRITE_BODIES;
const read = values.path === 'GET /clients/:client';
const body = bodies[values.path!];
if (!body && !read) throw new Error(`--path: one of ${Object.keys(bodies).join(', ')}, GET /clients/:client`);

const ids = await prepare();
const bare = await startChild('child-bare.ts', {});
const api = await startService({
  DATABASE_URL: url,
  RATE_LIMIT_PER_MINUTE: '100000000',
  WORKERS: process.env.WORKERS ?? '1',
});
const rows: Array<{ bare: LoadResult; it: LoadResult; load: number; cpu: Cpu }> = [];

/** CPU µs per request during a measurement: the service's (or bare route's) process tree, PostgreSQL's. */
interface Cpu {
  own: number;
  postgres: number;
}
const perRequest = (from: Cpu, to: Cpu, r: LoadResult): Cpu => {
  const n = r.rps * SECONDS;
  return { own: ((to.own - from.own) * 1000) / n, postgres: ((to.postgres - from.postgres) * 1000) / n };
};
try {
  for (let i = 0; i < Number(values.runs); i++) {
    let from = cpuNow([bare.child.pid!]);
    const b = await load({ url: `http://127.0.0.1:${bare.port}/bare` }, async () => {
      from = cpuNow([bare.child.pid!]);
    });
    const bareCpu = perRequest(from, cpuNow([bare.child.pid!]), b);
    const it = await load(
      read
        ? {
            url: `http://127.0.0.1:${api.port}/api/v1/clients/${ids.clientId}`,
            headers: { authorization: `Bearer ${ids.token}` },
          }
        : {
            url: `http://127.0.0.1:${api.port}/api/v1${values.path}`,
            method: 'POST',
            headers: { authorization: `Bearer ${ids.token}`, 'content-type': 'application/json' },
            body: JSON.stringify(body!(ids)),
          },
      async () => {
        if (url!.startsWith('postgres')) await analyzeWithoutAutovacuum(url!);
        from = cpuNow([api.child.pid!]);
      },
    );
    const cpu = perRequest(from, cpuNow([api.child.pid!]), it);
    rows.push({ bare: b, it, load: loadavg()[0]!, cpu });
    console.log(
      `run ${i + 1}: bare ${b.rps}/s, ${read ? '' : 'POST '}${values.path} ${it.rps}/s (p50 ${it.p50} ms, p99 ${it.p99} ms, ` +
        `errors ${it.errors + it.non2xx}) = ${((it.rps / b.rps) * 100).toFixed(1)} %, load ${loadavg()[0]!.toFixed(1)}; ` +
        `CPU µs per request: bare ${bareCpu.own.toFixed(1)}, service ${cpu.own.toFixed(1)}, PostgreSQL ${cpu.postgres.toFixed(1)}`,
    );
  }
} finally {
  await stopChild(api.child);
  await stopChild(bare.child);
}
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const fmt = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(1));
  return `median ${fmt(s[Math.floor((s.length - 1) / 2)]!)} min ${fmt(s[0]!)} max ${fmt(s.at(-1)!)}`;
};
console.log(`bare req/s: ${stats(rows.map((r) => r.bare.rps))}`);
console.log(`${read ? '' : 'POST '}${values.path} req/s: ${stats(rows.map((r) => r.it.rps))}`);
console.log(`share of bare %: ${stats(rows.map((r) => (r.it.rps / r.bare.rps) * 100))}`);
console.log(`load average: ${stats(rows.map((r) => r.load))}`);
console.log(`service CPU µs per request: ${stats(rows.map((r) => r.cpu.own))}`);
console.log(`PostgreSQL CPU µs per request: ${stats(rows.map((r) => r.cpu.postgres))}`);
