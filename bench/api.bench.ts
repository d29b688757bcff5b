// Issue 2's benchmark: GET /clients/{id}, GET /clients?per_page=50 and POST /clients on a
// fresh embedded database with 10,000 clients, against a bare Fastify route as the ceiling.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { importData } from '../src/import/index.js';
import { createIntegration } from '../src/modules/integration/integration.service.js';
import {
  environment,
  type LoadResult,
  load,
  type Metric,
  markdown,
  startChild,
  startService,
  stopChild,
  writeReport,
} from './lib.js';

const CLIENTS = 10_000;
const dir = await mkdtemp(join(tmpdir(), 'bench-api-'));
const dbFile = join(dir, 'bench.sqlite');

try {
  const handle = createDb(loadConfig({ DATABASE_URL: dbFile }).db);
  await migrateToLatest(handle.db);
  const { account_id } = await importData(handle.db, {
    account: { name: 'Bench' },
    users: [{ email: 'bench@bench.example', first_name: 'B', last_name: 'Ench', role: 'admin' }],
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
  const { access_token, client_id, client_secret } = await createIntegration(handle.db, {
    name: 'bench',
    scopes: ['client:read', 'client:write'],
  });
  await handle.destroy();

  const headers = { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' };
  // The ceiling is measured before and after the service and averaged: the machine's speed
  // drifts over a run (±20 % between runs here), and each ratio should face the same ceiling.
  const measureCeiling = async () => {
    const bare = await startChild('child-bare.ts', {});
    try {
      return await load({ url: `http://127.0.0.1:${bare.port}/bare` });
    } finally {
      await stopChild(bare.child);
    }
  };
  const before = await measureCeiling();
  const floorChild = await startChild('child-floor.ts', {
    DATABASE_URL: dbFile,
    ACCOUNT_ID: String(account_id),
  });
  let f = 0;
  const floor = await load({
    url: `http://127.0.0.1:${floorChild.port}`,
    requests: [{ method: 'GET', setupRequest: (r) => ({ ...r, path: `/clients/${(f++ % CLIENTS) + 1}` }) }],
  });
  await stopChild(floorChild.child);

  // The service as `npm start` runs it, first as one process, then as one per core.
  const service = { DATABASE_URL: dbFile, RATE_LIMIT_PER_MINUTE: '100000000' };
  const measure = async (workers: number) => {
    const api = await startService({ ...service, WORKERS: String(workers) });
    const base = `http://127.0.0.1:${api.port}/api/v1`;
    let n = 0;
    try {
      const getOne = await load({
        url: base,
        headers,
        requests: [
          { method: 'GET', setupRequest: (r) => ({ ...r, path: `/api/v1/clients/${(n++ % CLIENTS) + 1}` }) },
        ],
      });
      const list = await load({ url: `${base}/clients?per_page=50&page=20`, headers });
      // The same read with a token issued by the authorization server (oidc-provider, client
      // credentials at /oauth/token): it must take the same fast path as the CLI's tokens.
      const issued = await fetch(`http://127.0.0.1:${api.port}/oauth/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${client_id}:${client_secret}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'client:read' }),
      });
      if (issued.status !== 200)
        throw new Error(`/oauth/token answered ${issued.status}: ${await issued.text()}`);
      const oauthToken = ((await issued.json()) as { access_token: string }).access_token;
      let m = 0;
      const getOneOAuth = await load({
        url: base,
        headers: { authorization: `Bearer ${oauthToken}` },
        requests: [
          { method: 'GET', setupRequest: (r) => ({ ...r, path: `/api/v1/clients/${(m++ % CLIENTS) + 1}` }) },
        ],
      });
      const create = await load({
        url: `${base}/clients`,
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'Bench client', email: 'new@bench.example', country_code: 'DE' }),
      });
      return { getOne, getOneOAuth, list, create };
    } finally {
      await stopChild(api.child);
    }
  };
  const one = await measure(1);
  const two = await measure(2);
  const after = await measureCeiling();
  const mean = (a: number, b: number) => Math.round((a + b) / 2);
  const ceiling: LoadResult = {
    rps: mean(before.rps, after.rps),
    p50: mean(before.p50, after.p50),
    p99: mean(before.p99, after.p99),
    errors: before.errors + after.errors,
    non2xx: before.non2xx + after.non2xx,
  };

  const results: Metric[] = [];
  const add = (label: string, r: LoadResult) => {
    results.push(
      {
        metric: `${label} requests/s`,
        value: r.rps,
        unit: 'req/s',
        note: `${Math.round((r.rps / ceiling.rps) * 100)}% of ceiling`,
      },
      { metric: `${label} p50`, value: r.p50, unit: 'ms' },
      { metric: `${label} p99`, value: r.p99, unit: 'ms' },
      { metric: `${label} errors/non-2xx`, value: r.errors + r.non2xx, unit: 'count' },
    );
  };
  add('ceiling (bare Fastify), mean of before and after', ceiling);
  results.push(
    { metric: 'ceiling before requests/s', value: before.rps, unit: 'req/s' },
    { metric: 'ceiling after requests/s', value: after.rps, unit: 'req/s' },
  );
  add('floor: bare route + two SQLite reads per request', floor);
  add('GET /clients/{id}', one.getOne);
  add('GET /clients/{id} with an OAuth access token', one.getOneOAuth);
  add('GET /clients?per_page=50', one.list);
  add('POST /clients', one.create);
  add('WORKERS=2: GET /clients/{id}', two.getOne);
  add('WORKERS=2: GET /clients/{id} with an OAuth access token', two.getOneOAuth);
  add('WORKERS=2: GET /clients?per_page=50', two.list);
  add('WORKERS=2: POST /clients', two.create);
  const report = {
    name: 'api',
    date: new Date().toISOString(),
    environment: {
      ...environment(),
      database: 'sqlite (WAL, synchronous=FULL)',
      service: 'src/server.ts as npm start runs it (WORKERS=1, then 2); rate limiter on, 1e8/min',
      clients: CLIENTS,
      connections: 50,
      seconds: 8,
    },
    results,
  };
  await writeReport(report);
  console.log(markdown(report));
  for (const [label, r] of [
    ['one process', one.getOne],
    ['one process, OAuth token', one.getOneOAuth],
    ['WORKERS=2', two.getOne],
  ] as const) {
    const ratio = r.rps / ceiling.rps;
    console.log(
      `target GET /clients/{id} >= 40% of ceiling with p99 < 20 ms, ${label}: ${ratio >= 0.4 && r.p99 < 20 ? 'MET' : 'NOT MET'} (${Math.round(ratio * 100)}%, p99 ${r.p99} ms)`,
    );
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
