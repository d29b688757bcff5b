// The growth curve: GET /clients?per_page=50, page 1, a middle page and the last page, page 1
// in each documented sort (name, -name, shortcode), and a search (GET /search, the full-text
// index; and the list's own `q=` substring filter), with 10,000, 100,000 and 1,000,000 clients
// in one account (SQLite; `BENCH_PG=on` adds PostgreSQL; GROWTH_SIZES=10000,100000 for a
// quicker run), as the median latency of 200 requests of one client, one after another,
// against the service as `npm start` runs it. Target: at 1M each at most 2x its figure at 10k,
// the search under 50 ms.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { createDb, type Db } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { importData } from '../src/import/index.js';
import { createIntegration } from '../src/modules/integration/integration.service.js';
import {
  environment,
  type Metric,
  machineLoad,
  markdown,
  startService,
  stopChild,
  writeReport,
  writeText,
} from './lib.js';
import { freshPgDatabase, insertMany } from './seed.js';

const SIZES = (process.env.GROWTH_SIZES ?? '10000,100000,1000000').split(',').map(Number);
const REQUESTS = 200;
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Median latency in ms of REQUESTS sequential GETs (after 20 unmeasured). */
async function median(url: string, token: string): Promise<number> {
  const headers = { authorization: `Bearer ${token}` };
  const times: number[] = [];
  for (let i = 0; i < REQUESTS + 20; i++) {
    const t = process.hrtime.bigint();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
    if (i >= 20) times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  times.sort((a, b) => a - b);
  return Math.round(times[times.length >> 1]! * 100) / 100;
}

async function setUp(db: Db) {
  await migrateToLatest(db);
  const { account_id } = await importData(db, {
    account: { name: 'Growth' },
    users: [{ email: 'g@bench.example', first_name: 'G', last_name: 'Rowth', role: 'admin' }],
  });
  const { access_token } = await createIntegration(db, {
    name: 'growth',
    scopes: ['client:read'],
    accountId: account_id,
  });
  return { accountId: account_id, token: access_token };
}

const client = (accountId: number, i: number) => ({
  account_id: accountId,
  name: `Client ${i}`,
  email: `client${i}@bench.example`,
  city: 'Berlin',
  country_code: 'DE',
});

type Grow = (from: number, to: number) => Promise<void>;

async function curve(label: string, url: string, grow: Grow, token: string) {
  const out: Array<{ size: number; figures: Record<string, number> }> = [];
  let have = 0;
  for (const size of SIZES) {
    await grow(have, size);
    have = size;
    // Without the page cache: the curve is what reading a page costs as the table grows (with
    // it, every request after the first would be answered from the kept page).
    const api = await startService({ DATABASE_URL: url, RATE_LIMIT_PER_MINUTE: '0', PAGE_CACHE_MB: '0' });
    try {
      const base = `http://127.0.0.1:${api.port}/api/v1/clients?per_page=50`;
      const api1 = `http://127.0.0.1:${api.port}/api/v1`;
      const rare = `client ${Math.floor(size / 2)}`;
      const cases: Record<string, string> = {
        'page 1': `${base}&page=1`,
        'middle page': `${base}&page=${Math.ceil(size / 100)}`,
        'last page': `${base}&page=${Math.ceil(size / 50)}`,
        'sort=name': `${base}&sort=name`,
        'sort=-name': `${base}&sort=-name`,
        'sort=shortcode': `${base}&sort=shortcode`,
        'GET /search': `${api1}/search?q=${encodeURIComponent(rare)}&kinds=client`,
        'q= (substring)': `${base}&q=${encodeURIComponent(rare)}`,
      };
      const figures: Record<string, number> = {};
      for (const [name, url] of Object.entries(cases)) figures[name] = await median(url, token);
      out.push({ size, figures });
      console.log(`${label} ${size}: ${JSON.stringify(figures)}`);
    } finally {
      await stopChild(api.child);
    }
  }
  return out;
}

const dir = await mkdtemp(join(tmpdir(), 'bench-growth-'));
let pgDb: Awaited<ReturnType<typeof freshPgDatabase>> | undefined;
try {
  const loadBefore = machineLoad();
  const curves: Array<[string, Awaited<ReturnType<typeof curve>>]> = [];

  const file = join(dir, 'growth.sqlite');
  const handle = createDb(loadConfig({ DATABASE_URL: file }).db);
  const sqliteSetup = await setUp(handle.db);
  await handle.destroy();
  curves.push([
    'sqlite',
    await curve(
      'sqlite',
      file,
      async (from, to) => {
        // Straight on better-sqlite3, one transaction: a million rows in seconds.
        const raw = new SQLite(file);
        const insert = raw.prepare(
          'insert into clients (account_id, name, email, city, country_code) values (@account_id, @name, @email, @city, @country_code)',
        );
        raw.transaction(() => {
          for (let i = from; i < to; i++) insert.run(client(sqliteSetup.accountId, i));
        })();
        raw.exec('analyze');
        raw.close();
      },
      sqliteSetup.token,
    ),
  ]);

  if (process.env.BENCH_PG === 'on') {
    pgDb = await freshPgDatabase(PG_URL);
    const pgHandle = createDb(loadConfig({ DATABASE_URL: pgDb.url }).db);
    try {
      const pgSetup = await setUp(pgHandle.db);
      curves.push([
        'postgresql',
        await curve(
          'postgresql',
          pgDb.url,
          async (from, to) => {
            await insertMany(pgHandle.db, 'clients', to - from, (i) => client(pgSetup.accountId, i), from);
            await sql`analyze`.execute(pgHandle.db);
          },
          pgSetup.token,
        ),
      ]);
    } finally {
      await pgHandle.destroy();
    }
  }

  const loadAfter = machineLoad();
  const results: Metric[] = [];
  const lines = [
    `Median of ${REQUESTS} sequential requests of one client; load average ${loadBefore} before, ${loadAfter} after (2 cores).`,
    '',
    '| database | clients | request | ms | vs the same request at the smallest size |',
    '|---|---:|---|---:|---:|',
  ];
  for (const [dbName, points] of curves) {
    const smallest = points[0]!;
    for (const p of points) {
      for (const [name, ms] of Object.entries(p.figures)) {
        results.push({ metric: `${dbName} ${p.size} clients: ${name}`, value: ms, unit: 'ms' });
        lines.push(
          `| ${dbName} | ${p.size.toLocaleString('en')} | ${name} | ${ms} | ${(ms / smallest.figures[name]!).toFixed(2)}× |`,
        );
      }
    }
    const top = points[points.length - 1]!;
    for (const [name, ms] of Object.entries(top.figures)) {
      const ok = ms <= 2 * smallest.figures[name]! && (name !== 'GET /search' || ms < 50);
      console.log(
        `target ${dbName} ${name}: at ${top.size} <= 2x at ${smallest.size}: ${ok ? 'MET' : 'NOT MET'}`,
      );
    }
  }
  const report = {
    name: 'growth',
    date: new Date().toISOString(),
    environment: { ...environment(), sizes: SIZES.join(', '), requests: REQUESTS },
    results,
  };
  await writeReport(report);
  await writeText('growth-table.md', `${lines.join('\n')}\n`);
  console.log(markdown(report));
  console.log(lines.join('\n'));
} finally {
  await pgDb?.drop();
  await rm(dir, { recursive: true, force: true });
}
