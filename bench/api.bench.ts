// The read benchmark: every read scenario of docs/performance.md, on SQLite and on PostgreSQL,
// as a share of a bare Fastify route measured side by side with it (lib.ts `besideBare`), and
// of the bare route's mean over the run.
// The service runs as `npm start` runs it (src/server.ts, one process). Writes are measured by
// writes.bench.ts, growth with the table's size by growth.bench.ts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrator.js';
import {
  type Beside,
  benchToken,
  besideBare,
  environment,
  type Metric,
  machineLoad,
  markdown,
  meanBareRate,
  SIDE_BY_SIDE,
  startBare,
  startChild,
  startService,
  stopChild,
  writeReport,
  writeText,
} from './lib.js';
import { freshPgDatabase, SEARCH_TERM, seedAccount } from './seed.js';

const SIZE = 10_000;
const INVOICES = 1_000;
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dir = await mkdtemp(join(tmpdir(), 'bench-api-'));
const sqliteFile = join(dir, 'bench.sqlite');

const SCOPES = [
  'client:read',
  'task-management:read',
  'task-management:write',
  'contact-data:read',
  'outgoing-invoice:read',
];

/** Migrates and fills a database, and makes a token for it. */
async function prepare(url: string) {
  const handle = createDb(loadConfig({ DATABASE_URL: url }).db);
  try {
    await migrateToLatest(handle.db);
    const accountId = await seedAccount(handle.db, SIZE, INVOICES);
    return { accountId, token: await benchToken(handle.db, SCOPES, accountId) };
  } finally {
    await handle.destroy();
  }
}

interface Scenario {
  label: string;
  path: string | ((n: number) => string);
  /** Tasks created meanwhile, 50 a second: writes to a table the page does not read. */
  writingTasks?: boolean;
}
const SCENARIOS: Scenario[] = [
  { label: 'GET /clients/{id}', path: (n) => `/api/v1/clients/${(n % SIZE) + 1}` },
  { label: 'GET /clients?per_page=50&page=20', path: '/api/v1/clients?per_page=50&page=20' },
  { label: 'GET /tasks?per_page=50', path: '/api/v1/tasks?per_page=50' },
  { label: 'GET /contacts?per_page=50', path: '/api/v1/contacts?per_page=50' },
  { label: 'GET /projects?per_page=50', path: '/api/v1/projects?per_page=50' },
  { label: 'GET /outgoing-invoices?per_page=50', path: '/api/v1/outgoing-invoices?per_page=50' },
  {
    label: `GET /contacts?q=${SEARCH_TERM} (a tenth of the contacts)`,
    path: `/api/v1/contacts?q=${SEARCH_TERM}`,
  },
  {
    // The page cache keeps the clients list while only tasks are written (table versions).
    label: 'GET /clients?per_page=50&page=20 while 50 tasks/s are created',
    path: '/api/v1/clients?per_page=50&page=20',
    writingTasks: true,
  },
];

/** The targets (docs/performance.md), as shares of the bare route. */
const TARGETS: Record<string, Record<string, number>> = {
  sqlite: {
    'GET /clients/{id}': 0.6,
    'GET /clients?per_page=50&page=20': 0.25,
    'GET /tasks?per_page=50': 0.25,
    'GET /contacts?per_page=50': 0.25,
    'GET /projects?per_page=50': 0.25,
    'GET /outgoing-invoices?per_page=50': 0.1,
  },
  postgresql: {
    'GET /clients/{id}': 0.3,
    'GET /clients?per_page=50&page=20': 0.1,
    'GET /tasks?per_page=50': 0.1,
    'GET /contacts?per_page=50': 0.1,
    'GET /projects?per_page=50': 0.1,
  },
};

async function measureService(env: Record<string, string>, token: string, bareUrl: string) {
  const api = await startService({ ...env, RATE_LIMIT_PER_MINUTE: '100000000' });
  const out = new Map<string, Beside>();
  try {
    for (const s of SCENARIOS) {
      // Every answer is checked once: a benchmark of 4xx answers measures nothing.
      const first = typeof s.path === 'string' ? s.path : s.path(0);
      const probe = await fetch(`http://127.0.0.1:${api.port}${first}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      if (probe.status !== 200) throw new Error(`${first} answered ${probe.status}: ${await probe.text()}`);
      let n = 0;
      const path = s.path;
      let writing = s.writingTasks;
      const writer = (async () => {
        for (let i = 0; writing; i++) {
          const res = await fetch(`http://127.0.0.1:${api.port}/api/v1/tasks`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ project_id: 1, name: `Bench task ${i}` }),
          });
          if (res.status !== 201) throw new Error(`POST /tasks answered ${res.status}: ${await res.text()}`);
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      out.set(
        s.label,
        await besideBare(bareUrl, {
          url: `http://127.0.0.1:${api.port}`,
          headers: { authorization: `Bearer ${token}` },
          requests: [
            {
              method: 'GET',
              setupRequest: (r) => ({ ...r, path: typeof path === 'string' ? path : path(n++) }),
            },
          ],
        }),
      );
      writing = false;
      await writer;
    }
  } finally {
    await stopChild(api.child);
  }
  return out;
}

let pgDb: Awaited<ReturnType<typeof freshPgDatabase>> | undefined;
try {
  const loadBefore = machineLoad();
  const sqlite = await prepare(sqliteFile);
  let postgres: Awaited<ReturnType<typeof prepare>> | undefined;
  if (process.env.BENCH_PG !== 'off') {
    pgDb = await freshPgDatabase(PG_URL);
    postgres = await prepare(pgDb.url);
  }

  const bareRoute = await startBare();
  const floorChild = await startChild('child-floor.ts', {
    DATABASE_URL: sqliteFile,
    ACCOUNT_ID: String(sqlite.accountId),
  });
  let f = 0;
  const floor = await besideBare(bareRoute.url, {
    url: `http://127.0.0.1:${floorChild.port}`,
    requests: [{ method: 'GET', setupRequest: (r) => ({ ...r, path: `/clients/${(f++ % SIZE) + 1}` }) }],
  });
  await stopChild(floorChild.child);
  // Each database as `npm start` runs it (pages kept while nothing is written,
  // plugins/page-cache.ts), and with PAGE_CACHE_MB=0: every request reads its page, as after
  // a write (on PostgreSQL: a commit anywhere on the server).
  const runs: Array<[string, Map<string, Beside>]> = [];
  try {
    runs.push(
      ['sqlite', await measureService({ DATABASE_URL: sqliteFile }, sqlite.token, bareRoute.url)],
      [
        'sqlite-uncached',
        await measureService({ DATABASE_URL: sqliteFile, PAGE_CACHE_MB: '0' }, sqlite.token, bareRoute.url),
      ],
    );
    if (postgres && pgDb)
      runs.push(
        ['postgresql', await measureService({ DATABASE_URL: pgDb.url }, postgres.token, bareRoute.url)],
        [
          'postgresql-uncached',
          await measureService({ DATABASE_URL: pgDb.url, PAGE_CACHE_MB: '0' }, postgres.token, bareRoute.url),
        ],
      );
  } finally {
    await bareRoute.stop();
  }
  const measured = [floor, ...runs.flatMap(([, rows]) => [...rows.values()])];
  const bareRates = measured.map((b) => b.bare.rps);
  const ceiling = meanBareRate(measured);
  /** The share judged: of the bare route measured side by side with the scenario. */
  const share = (b: Beside) => b.result.rps / b.bare.rps;
  /** The share of the bare route's mean over the run: a second view, less fair to a scenario measured in a slow minute. */
  const ofRun = (b: Beside) => b.result.rps / ceiling;
  // One decimal everywhere: a verdict on 59.6 % must not print "60 %".
  const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

  const results: Metric[] = [];
  const add = (label: string, b: Beside) => {
    const r = b.result;
    results.push(
      {
        metric: `${label} requests/s`,
        value: r.rps,
        unit: 'req/s',
        note: `${pct(share(b))} of the bare route beside it (${b.bare.rps} req/s); ${pct(ofRun(b))} of the run's mean`,
      },
      { metric: `${label} p50`, value: r.p50, unit: 'ms' },
      { metric: `${label} p99`, value: r.p99, unit: 'ms' },
      { metric: `${label} errors/non-2xx`, value: r.errors + r.non2xx, unit: 'count' },
    );
  };
  results.push({ metric: 'bare Fastify route, mean over the run', value: ceiling, unit: 'req/s' });
  add('floor: bare route + two SQLite reads per request', floor);
  for (const [dbName, rows] of runs) for (const [label, r] of rows) add(`${dbName}: ${label}`, r);

  // The table of docs/performance.md: one row per scenario, both databases side by side.
  const loadAfter = machineLoad();
  const cell = (dbName: string, label: string) => {
    const r = runs.find(([d]) => d === dbName)?.[1].get(label);
    return r
      ? `${r.result.rps.toLocaleString('en')} / ${pct(share(r))} (${pct(ofRun(r))}) / ${r.result.p99} ms`
      : '—';
  };
  const table = [
    `Bare Fastify route, measured side by side with each scenario: ${Math.min(...bareRates).toLocaleString('en')}–${Math.max(...bareRates).toLocaleString('en')} req/s, ${ceiling.toLocaleString('en')} on average; load average ${loadBefore} before the run, ${loadAfter} after (2 cores). Share: of the bare route beside the scenario (in brackets: of its mean over the run).`,
    '',
    '| scenario | SQLite: req/s / share / p99 | SQLite, page cache off | PostgreSQL: req/s / share / p99 | PostgreSQL, page cache off | targets (SQLite / PostgreSQL) |',
    '|---|---:|---:|---:|---:|---|',
    ...SCENARIOS.map((s) => {
      const t = (d: string) => (TARGETS[d]?.[s.label] ? `≥ ${pct(TARGETS[d][s.label]!)}` : '—');
      return `| \`${s.label}\` | ${cell('sqlite', s.label)} | ${cell('sqlite-uncached', s.label)} | ${cell('postgresql', s.label)} | ${cell('postgresql-uncached', s.label)} | ${t('sqlite')} / ${t('postgresql')} |`;
    }),
    '',
  ].join('\n');
  const report = {
    name: 'api',
    date: new Date().toISOString(),
    environment: {
      ...environment(),
      databases: runs.map(([d]) => d).join(', '),
      service: 'src/server.ts as npm start runs it (WORKERS=1); rate limiter on, 1e8/min',
      size: `${SIZE} clients, tasks and contacts, ${SIZE / 10} projects, ${INVOICES} invoices of 3 lines`,
      connections: 50,
      seconds: SIDE_BY_SIDE,
      'load average before / after': `${loadBefore} / ${loadAfter}`,
    },
    results,
  };
  await writeReport(report);
  await writeText('api-table.md', table);
  console.log(markdown(report));
  console.log(table);
  for (const [dbName, rows] of runs)
    for (const [label, target] of Object.entries(TARGETS[dbName] ?? {})) {
      const r = rows.get(label);
      if (!r) continue;
      console.log(
        `target ${dbName} ${label} >= ${pct(target)}: ${share(r) >= target ? 'MET' : 'NOT MET'} (${pct(share(r))} of the bare route beside it; ${pct(ofRun(r))} of the run's mean)`,
      );
    }
} finally {
  await pgDb?.drop();
  await rm(dir, { recursive: true, force: true });
}
