// The write benchmark: POST /clients, POST /outgoing-invoices (3 lines) and POST /tasks
// on SQLite (WAL, synchronous=FULL) and PostgreSQL, and GET /clients/{id} on PostgreSQL, each
// as a share of a bare Fastify route measured side by side with it (lib.ts `besideBare`), and
// of the bare route's mean over the run.
// PostgreSQL runs when BENCH_DATABASE_URL (or TEST_DATABASE_URL) names a server: a database of
// its own is created there and dropped afterwards. `npm run bench -- writes`
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { importData } from '../src/import/index.js';
import {
  analyzeWithoutAutovacuum,
  type Beside,
  benchToken,
  besideBare,
  environment,
  type Metric,
  markdown,
  meanBareRate,
  SIDE_BY_SIDE,
  startBare,
  startService,
  stopChild,
  WRITE_BODIES,
  writeReport,
} from './lib.js';

const CLIENTS = 10_000;
const PG_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const WORKERS = process.env.BENCH_WORKERS ?? '1';

interface Target {
  kind: 'sqlite' | 'postgres';
  url: string;
  cleanup(): Promise<void>;
}

async function sqliteTarget(): Promise<Target> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-writes-'));
  return {
    kind: 'sqlite',
    url: join(dir, 'bench.sqlite'),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

async function pgTarget(url: string): Promise<Target> {
  const name = `bench_writes_${randomBytes(4).toString('hex')}`;
  const admin = async (q: string) => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query(q);
    } finally {
      await c.end();
    }
  };
  await admin(`create database ${name}`);
  const u = new URL(url);
  u.pathname = `/${name}`;
  return {
    kind: 'postgres',
    url: u.toString(),
    cleanup: () => admin(`drop database if exists ${name} with (force)`),
  };
}

/** A database with 10,000 clients, a project, and a token that may write all three. */
async function prepare(target: Target) {
  const handle = createDb(loadConfig({ DATABASE_URL: target.url }).db);
  try {
    await migrateToLatest(handle.db);
    const { account_id } = await importData(handle.db, {
      account: { name: 'Bench' },
      users: [{ email: 'bench@bench.example', first_name: 'B', last_name: 'Ench', role: 'admin' }],
      clients: [{ key: 'c', name: 'Invoiced client' }],
      projects: [{ key: 'p', client: 'c', name: 'Bench project' }],
    });
    for (let i = 0; i < CLIENTS; i += 500) {
      const rows = Array.from({ length: Math.min(500, CLIENTS - i) }, (_, j) => ({
        account_id,
        name: `Client ${i + j}`,
        email: `client${i + j}@bench.example`,
        city: 'Berlin',
        country_code: 'DE',
      }));
      await handle.db.insertInto('clients').values(rows).execute();
    }
    // Statistics, as after an import (the import runs ANALYZE on PostgreSQL).
    if (target.kind === 'postgres') await sql`analyze`.execute(handle.db);
    const ids = await handle.db
      .selectFrom('clients')
      .select('id')
      .where('account_id', '=', account_id)
      .orderBy('id')
      .execute();
    const project = await handle.db.selectFrom('projects').select('id').executeTakeFirstOrThrow();
    const scopes = ['client:read', 'client:write', 'task-management:write', 'outgoing-invoice:write'];
    return {
      token: await benchToken(handle.db, scopes),
      clientIds: ids.map((r) => r.id),
      projectId: project.id,
    };
  } finally {
    await handle.destroy();
  }
}

async function measureTarget(target: Target, bareUrl: string) {
  const { token, clientIds, projectId } = await prepare(target);
  const api = await startService({
    DATABASE_URL: target.url,
    RATE_LIMIT_PER_MINUTE: '100000000',
    WORKERS,
  });
  const base = `http://127.0.0.1:${api.port}/api/v1`;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const post = (path: string, body: object) =>
    besideBare(
      bareUrl,
      { url: `${base}${path}`, method: 'POST', headers, body: JSON.stringify(body) },
      target.kind === 'postgres' ? () => analyzeWithoutAutovacuum(target.url) : undefined,
    );
  try {
    const out: Record<string, Beside> = {};
    if (target.kind === 'postgres') {
      let n = 0;
      out['GET /clients/{id}'] = await besideBare(bareUrl, {
        url: base,
        headers,
        requests: [
          {
            method: 'GET',
            setupRequest: (r) => ({ ...r, path: `/api/v1/clients/${clientIds[n++ % clientIds.length]}` }),
          },
        ],
      });
    }
    const ids = { clientId: clientIds[0]!, projectId };
    out['POST /clients'] = await post('/clients', WRITE_BODIES['/clients']());
    out['POST /outgoing-invoices (3 lines)'] = await post(
      '/outgoing-invoices',
      WRITE_BODIES['/outgoing-invoices'](ids),
    );
    out['POST /tasks'] = await post('/tasks', WRITE_BODIES['/tasks'](ids));
    return out;
  } finally {
    await stopChild(api.child);
    await target.cleanup();
  }
}

const bareRoute = await startBare();
let sqlite: Record<string, Beside>;
let postgres: Record<string, Beside> | undefined;
try {
  sqlite = await measureTarget(await sqliteTarget(), bareRoute.url);
  postgres = PG_URL ? await measureTarget(await pgTarget(PG_URL), bareRoute.url) : undefined;
} finally {
  await bareRoute.stop();
}
const ceiling = meanBareRate([...Object.values(sqlite), ...Object.values(postgres ?? {})]);

const results: Metric[] = [
  { metric: 'bare Fastify route, mean over the run', value: ceiling, unit: 'req/s' },
];
const targets: Record<string, number> = {
  'sqlite: POST /clients': 20,
  'sqlite: POST /outgoing-invoices (3 lines)': 12,
  'sqlite: POST /tasks': 12,
  'postgres: GET /clients/{id}': 30,
  'postgres: POST /clients': 12,
  'postgres: POST /outgoing-invoices (3 lines)': 12,
  'postgres: POST /tasks': 12,
};
const verdicts: string[] = [];
for (const [db, out] of [
  ['sqlite', sqlite],
  ['postgres', postgres],
] as const) {
  for (const [scenario, b] of Object.entries(out ?? {})) {
    const label = `${db}: ${scenario}`;
    const r = b.result;
    // Judged unrounded: 11.6 % does not meet 12 %, though rounded it would print "12%".
    // Judged against the bare route measured side by side with the scenario (lib.ts `besideBare`).
    const exact = (r.rps / b.bare.rps) * 100;
    const ofRun = (r.rps / ceiling) * 100;
    results.push(
      {
        metric: `${label} requests/s`,
        value: r.rps,
        unit: 'req/s',
        note: `${exact.toFixed(1)} % of the bare route beside it (${b.bare.rps} req/s); ${ofRun.toFixed(1)} % of the run's mean`,
      },
      { metric: `${label} p50 / p99`, value: r.p50, unit: 'ms', note: `p99 ${r.p99} ms` },
      { metric: `${label} errors/non-2xx`, value: r.errors + r.non2xx, unit: 'count' },
    );
    const goal = targets[label];
    if (goal)
      verdicts.push(
        `target ${label} >= ${goal}%: ${exact >= goal ? 'MET' : 'NOT MET'} (${exact.toFixed(1)} % of the bare route beside it; ${ofRun.toFixed(1)} % of the run's mean)`,
      );
  }
}
const report = {
  name: 'writes',
  date: new Date().toISOString(),
  environment: {
    ...environment(),
    sqlite: 'WAL, synchronous=FULL',
    postgres: PG_URL ? 'local server, fresh database' : 'not measured (set BENCH_DATABASE_URL)',
    service: `src/server.ts as npm start runs it, WORKERS=${WORKERS}; rate limiter on, 1e8/min`,
    clients: CLIENTS,
    connections: 50,
    seconds: SIDE_BY_SIDE,
  },
  results,
};
await writeReport(report);
console.log(markdown(report));
for (const v of verdicts) console.log(v);
