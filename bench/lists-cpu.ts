// CPU per request of the lists of 50 with the page cache off, in one process through
// `app.inject` (10 at a time, best of `--rounds` rounds of 200), over the data of bench/seed.ts: a
// quick A/B measure for changes to the list paths, steadier on a busy machine than the
// side-by-side bench (api.bench.ts), which stays the judge.
//
//   tsx bench/lists-cpu.ts [--url <sqlite file or postgres url>] [--dump dir] [--only clients]
//     [--rounds 3] [--profile dir]
//
// `--dump dir` writes each answer's body and Link header there, to compare two builds' bytes;
// `--profile dir` a CPU profile of each path's measured rounds.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { benchToken } from './lib.js';
import { freshPgDatabase, seedAccount } from './seed.js';

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    dump: { type: 'string' },
    only: { type: 'string' },
    rounds: { type: 'string', default: '12' },
    profile: { type: 'string' },
  },
});
const PATHS = [
  '/clients/1',
  '/clients?per_page=50&page=20',
  '/clients/full?per_page=50&page=20',
  '/contacts?per_page=50',
  '/projects?per_page=50',
  '/tasks?per_page=50',
  '/tasks?per_page=50&project_id=1',
  '/outgoing-invoices?per_page=50',
].filter((p) => !values.only || p.includes(values.only));
const SCOPES = ['client:read', 'task-management:read', 'contact-data:read', 'outgoing-invoice:read'];

const dir = await mkdtemp(join(tmpdir(), 'bench-lists-'));
const pgDb = values.url?.startsWith('postgres') ? await freshPgDatabase(values.url) : undefined;
const url = pgDb?.url ?? values.url ?? join(dir, 'lists.sqlite');
const handle = createDb(loadConfig({ DATABASE_URL: url }).db);
try {
  await migrateToLatest(handle.db);
  const accountId = await seedAccount(handle.db, 10_000, 1_000);
  const token = await benchToken(handle.db, SCOPES, accountId);
  const app = await buildApp(
    loadConfig({
      DATABASE_URL: url,
      LOG_LEVEL: 'silent',
      RUN_WORKER: 'false',
      PAGE_CACHE_MB: '0',
      RATE_LIMIT_PER_MINUTE: '100000000',
    }),
    { db: handle, logger: false },
  );
  const get = async (path: string) => {
    const res = await app.inject({
      method: 'GET',
      url: `/api/v1${path}`,
      headers: { authorization: `Bearer ${token}` },
    });
    if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    return res;
  };
  try {
    for (const path of PATHS) {
      const res = await get(path);
      if (values.dump)
        await writeFile(
          join(values.dump, path.replace(/[^a-z0-9]+/gi, '_')),
          `${res.headers.link}\n${res.headers['content-type']}\n${res.body}`,
        );
      for (let i = 0; i < 300; i++) await get(path);
      const best: number[] = [];
      const session = values.profile ? new Session() : undefined;
      if (session) {
        session.connect();
        await session.post('Profiler.enable');
        await session.post('Profiler.setSamplingInterval', { interval: 100 });
        await session.post('Profiler.start');
      }
      for (let r = 0; r < Number(values.rounds); r++) {
        const n = 200;
        const from = process.cpuUsage();
        for (let i = 0; i < n; i += 10) await Promise.all(Array.from({ length: 10 }, () => get(path)));
        const used = process.cpuUsage(from);
        best.push((used.user + used.system) / n);
      }
      if (session) {
        const { profile } = await session.post('Profiler.stop');
        await writeFile(
          join(values.profile!, `${path.replace(/[^a-z0-9]+/gi, '_')}.cpuprofile`),
          JSON.stringify(profile),
        );
        session.disconnect();
      }
      console.log(
        `${path}: ${Math.min(...best).toFixed(0)} µs CPU a request (median ${[...best].sort((a, b) => a - b)[best.length >> 1]!.toFixed(0)}), load ${loadavg()[0]!.toFixed(1)}`,
      );
    }
  } finally {
    await app.close();
  }
} finally {
  await handle.destroy();
  await pgDb?.drop();
  await rm(dir, { recursive: true, force: true });
}
