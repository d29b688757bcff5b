// The growth curve: GET /clients?per_page=50, page 1 and the last page, with 10,000,
// 100,000 and 1,000,000 clients in one account (SQLite; `BENCH_PG=on` adds PostgreSQL), as
// the median latency of 200 requests of one client, one after another, against the service
// as `npm start` runs it. Target: at 1M both at most 2x page 1 at 10k.
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
  const out: Array<{ size: number; first: number; last: number }> = [];
  let have = 0;
  for (const size of SIZES) {
    await grow(have, size);
    have = size;
    // Without the page cache: the curve is what reading a page costs as the table grows (with
    // it, every request after the first would be answered from the kept page).
    const api = await startService({ DATABASE_URL: url, RATE_LIMIT_PER_MINUTE: '0', PAGE_CACHE_MB: '0' });
    try {
      const base = `http://127.0.0.1:${api.port}/api/v1/clients?per_page=50`;
      const first = await median(`${base}&page=1`, token);
      const last = await median(`${base}&page=${Math.ceil(size / 50)}`, token);
      out.push({ size, first, last });
      console.log(`${label} ${size}: page 1 ${first} ms, last page ${last} ms`);
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
    '| database | clients | page 1 | last page | vs page 1 at the smallest size |',
    '|---|---:|---:|---:|---|',
  ];
  for (const [dbName, points] of curves) {
    const base = points[0]!.first;
    for (const p of points) {
      results.push(
        { metric: `${dbName} ${p.size} clients: page 1`, value: p.first, unit: 'ms' },
        { metric: `${dbName} ${p.size} clients: last page`, value: p.last, unit: 'ms' },
      );
      lines.push(
        `| ${dbName} | ${p.size.toLocaleString('en')} | ${p.first} ms | ${p.last} ms | ${(p.first / base).toFixed(2)}× / ${(p.last / base).toFixed(2)}× |`,
      );
    }
    const top = points[points.length - 1]!;
    const ok = top.first <= 2 * base && top.last <= 2 * base;
    console.log(
      `target ${dbName}: page 1 and last page at ${top.size} <= 2x page 1 at ${points[0]!.size}: ${ok ? 'MET' : 'NOT MET'}`,
    );
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
