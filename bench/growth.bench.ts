// The growth curve: GET /clients?per_page=50, page 1, a middle page by number and by cursor
// (`after`, the cursor the Link `next` of the page before carries), the last page, page 1 in
// each documented sort (name, -name, shortcode) and a middle page of sort=name by cursor, and
// a search (GET /search, the full-text index; and the list's own `q=` substring filter), with
// 10,000, 100,000 and 1,000,000 clients in one account (SQLite; `BENCH_PG=on` adds PostgreSQL,
// `BENCH_SQLITE=off` leaves SQLite out; GROWTH_SIZES=10000,100000 for a quicker run), as the median latency of 200 requests of one
// client, one after another, against the service as `npm start` runs it. Target: at 1M each at
// most 2x its figure at 10k, the searches under 50 ms.
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
import { fold } from '../src/shared/search.js';
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
import { freshPgDatabase } from './seed.js';

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

/**
 * The `after` cursor that follows the page at `url` (read by number, once): the Link `next`
 * the service gives when that page is read by cursor. Checked against the service at the
 * start of the list, where the cursor paging answers from an empty `after`.
 */
async function nextCursor(url: string, token: string, sortKeys: string[]): Promise<string> {
  const headers = { authorization: `Bearer ${token}` };
  const read = async (u: string) => {
    const res = await fetch(u, { headers });
    if (res.status !== 200) throw new Error(`${u} answered ${res.status}`);
    return {
      body: (await res.json()) as { data: Record<string, unknown>[] },
      link: res.headers.get('link') ?? '',
    };
  };
  const cursorOf = (row: Record<string, unknown>) =>
    Buffer.from(JSON.stringify([...sortKeys.map((k) => row[k] ?? null), row.id])).toString('base64url');
  const first = await read(url.replace(/&page=\d+/, '&after='));
  const next = /<([^>]+)>; rel="next"/.exec(first.link)?.[1];
  const given = next ? new URL(next, 'http://x').searchParams.get('after') : undefined;
  if (given !== cursorOf(first.body.data.at(-1)!)) throw new Error(`unexpected cursor ${given}`);
  return cursorOf((await read(url)).body.data.at(-1)!);
}

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
      // The cursors a client holds after reading the page before the middle one: the Link
      // `next` of that page read by cursor (a cursor is the last row's sort values).
      const middle = Math.ceil(size / 100);
      cases['middle page (cursor)'] =
        `${base}&after=${await nextCursor(`${base}&page=${middle - 1}`, token, [])}`;
      cases['sort=name, middle page (cursor)'] =
        `${base}&sort=name&after=${await nextCursor(`${base}&sort=name&page=${middle - 1}`, token, ['name'])}`;
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
  if (process.env.BENCH_SQLITE !== 'off')
    curves.push([
      'sqlite',
      await curve(
        'sqlite',
        file,
        async (from, to) => {
          // Straight on better-sqlite3, one transaction: a million rows in seconds.
          const raw = new SQLite(file);
          // The substring index's triggers fold the text as the service's connections do.
          raw.function('fold', { deterministic: true }, (v: unknown) =>
            typeof v === 'string' ? fold(v) : v,
          );
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
    // No statement timeout for the seeding statements (100,000 rows each, with their triggers).
    const seedUrl = new URL(pgDb.url);
    seedUrl.searchParams.set('statement_timeout', '0');
    const pgHandle = createDb(loadConfig({ DATABASE_URL: seedUrl.href }).db);
    try {
      const pgSetup = await setUp(pgHandle.db);
      curves.push([
        'postgresql',
        await curve(
          'postgresql',
          pgDb.url,
          async (from, to) => {
            // Set-based, 100,000 rows a statement: a million rows in minutes with every trigger
            // and index of the table.
            for (let i = from; i < to; i += 100_000) {
              const end = Math.min(to, i + 100_000) - 1;
              await sql`insert into clients (account_id, name, email, city, country_code)
                select ${pgSetup.accountId}, 'Client ' || n, 'client' || n || '@bench.example', 'Berlin', 'DE'
                from generate_series(${i}::int, ${end}::int) n`.execute(pgHandle.db);
            }
            // As autovacuum would: the visibility map lets deep pages skip rows in the index alone.
            await sql`vacuum analyze`.execute(pgHandle.db);
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
      const ok = ms <= 2 * smallest.figures[name]! && (!/search|q=/.test(name) || ms < 50);
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
