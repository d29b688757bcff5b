// Memory of the server processes (issue 44 point 4): resident memory (RSS) of each server
// process idle and under a mixed load — creates, patches, bookings, PDF uploads and lists,
// 20 at a time — on PostgreSQL with WORKERS=2, as `npm start` runs it. Target: each server
// process under 512 MB. `MEMORY_SECONDS` (default 60) is the length of the load;
// `MEMORY_WORKERS` (default 2) the number of server processes; `BENCH_PG=off` skips it.
// Run: TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/memory.bench.ts
import { readdir, readFile } from 'node:fs/promises';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { importData } from '../src/import/index.js';
import { renderDocumentPdf } from '../src/shared/pdf/render.js';
import { sampleDocument } from '../src/shared/pdf/sample.js';
import {
  benchToken,
  environment,
  type Metric,
  machineLoad,
  markdown,
  startService,
  stopChild,
  writeReport,
} from './lib.js';
import { freshPgDatabase } from './seed.js';

const SECONDS = Number(process.env.MEMORY_SECONDS ?? 60);
const WORKERS = process.env.MEMORY_WORKERS ?? '2';
const CONCURRENCY = 20;
const PG_URL =
  process.env.BENCH_PG_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Resident memory of a process in MB (Linux /proc). */
async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const m = /VmRSS:\s+(\d+)/.exec(status);
  return m ? Math.round(Number(m[1]) / 1024) : 0;
}

/** The server processes: the supervisor's children (WORKERS > 1), else the process itself. */
async function serverPids(root: number): Promise<number[]> {
  const children: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const cmd = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    // The server processes (forked with src/server.ts's arguments), not helpers such as the stop watchdog.
    if (ppid === root && cmd.includes('server.ts')) children.push(Number(entry));
  }
  return children.length > 0 ? children : [root];
}

if (process.env.BENCH_PG === 'off') {
  console.log('memory: skipped (BENCH_PG=off; it measures the service on PostgreSQL)');
  process.exit(0);
}
const db = await freshPgDatabase(PG_URL);
try {
  const handle = createDb(loadConfig({ DATABASE_URL: db.url }).db);
  await migrateToLatest(handle.db);
  const { account_id } = await importData(handle.db, {
    account: {
      name: 'Bench',
      country_code: 'DE',
      settings: {
        street: 'Teststraße 1',
        zip: '10115',
        city: 'Berlin',
        vat_id: 'DE123456789',
        contact_name: 'B Ench',
        phone: '+49 30 1234567',
        email: 'billing@bench.example',
        iban: 'DE02120300000000202051',
        bic: 'BYLADEM1001',
        service_date_defaults_to_invoice_date: true,
      },
    },
    users: [{ email: 'bench@bench.example', first_name: 'B', last_name: 'Ench', role: 'admin' }],
  });
  const access_token = await benchToken(
    handle.db,
    [
      'client:read',
      'client:write',
      'outgoing-invoice:read',
      'outgoing-invoice:write',
      'outgoing-invoice:book',
      'incoming-invoice:read',
      'incoming-invoice:write',
    ],
    account_id,
  );
  await handle.destroy();
  const pdf = await renderDocumentPdf(sampleDocument({ lines: 10, language: 'de' }));

  const api = await startService({
    DATABASE_URL: db.url,
    WORKERS,
    RATE_LIMIT_PER_MINUTE: '100000000',
    LOG_LEVEL: 'error',
  });
  const base = `http://127.0.0.1:${api.port}/api/v1`;
  const headers = { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' };
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(base + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
    return text ? JSON.parse(text) : undefined;
  };
  const clientIds: number[] = [];
  const newClient = async () => {
    const { data } = await call('POST', '/clients', {
      name: `Client ${clientIds.length}`,
      street: 'Kundenweg 7',
      zip: '20095',
      city: 'Hamburg',
      country_code: 'DE',
    });
    clientIds.push(data.id);
    return data.id as number;
  };
  for (let i = 0; i < 50; i++) await newClient();
  const pick = () => clientIds[Math.floor(Math.random() * clientIds.length)]!;
  const counts = new Map<string, number>();
  const ops: Array<[string, () => Promise<unknown>]> = [
    ['create client', newClient],
    ['patch client', () => call('PATCH', `/clients/${pick()}`, { notes: `n ${Math.random()}` })],
    [
      'create and book invoice',
      async () => {
        const { data } = await call('POST', '/outgoing-invoices', {
          client_id: pick(),
          line_items: [{ title: 'Work', quantity: 3, unit_price: 95.5, tax_rate: 19 }],
        });
        await call('POST', `/outgoing-invoices/${data.id}/book`, {});
      },
    ],
    [
      'upload PDF',
      async () => {
        const form = new FormData();
        form.append('file', new Blob([pdf], { type: 'application/pdf' }), 'invoice.pdf');
        const res = await fetch(`${base}/incoming-invoices`, {
          method: 'POST',
          headers: { authorization: headers.authorization },
          body: form,
        });
        await res.arrayBuffer();
        if (res.status >= 300 && res.status !== 503) throw new Error(`upload: ${res.status}`);
      },
    ],
    ['list clients', () => call('GET', '/clients?per_page=50')],
    ['list invoices', () => call('GET', '/outgoing-invoices?per_page=50')],
  ];

  // MEMORY_SKIP: operations left out (comma-separated names), to see what each costs.
  const skip = new Set((process.env.MEMORY_SKIP ?? '').split(',').filter(Boolean));
  for (let i = ops.length - 1; i >= 0; i--) if (skip.has(ops[i]![0])) ops.splice(i, 1);
  const pids = await serverPids(api.child.pid!);
  await new Promise((r) => setTimeout(r, 2000));
  const idle = await Promise.all(pids.map(rssOf));
  const peak = pids.map(() => 0);
  const sampler = setInterval(async () => {
    const now = await Promise.all(pids.map(rssOf));
    now.forEach((v, i) => {
      peak[i] = Math.max(peak[i]!, v);
    });
  }, 500);
  const loadBefore = machineLoad();
  const until = Date.now() + SECONDS * 1000;
  let errors = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < until) {
        const [name, op] = ops[Math.floor(Math.random() * ops.length)]!;
        try {
          await op();
          counts.set(name, (counts.get(name) ?? 0) + 1);
        } catch {
          errors++;
        }
      }
    }),
  );
  clearInterval(sampler);
  const after = await Promise.all(pids.map(rssOf));
  await stopChild(api.child);

  const results: Metric[] = [];
  pids.forEach((_, i) => {
    results.push(
      { metric: `server process ${i + 1}: RSS idle`, value: idle[i]!, unit: 'MB' },
      {
        metric: `server process ${i + 1}: RSS under load, highest`,
        value: peak[i]!,
        unit: 'MB',
        note: `target < 512 MB: ${peak[i]! < 512 ? 'met' : 'NOT met'}`,
      },
      { metric: `server process ${i + 1}: RSS at the end of the load`, value: after[i]!, unit: 'MB' },
    );
  });
  results.push({
    metric: 'operations done',
    value: [...counts.values()].reduce((a, b) => a + b, 0),
    unit: 'count',
    note: `${[...counts].map(([k, v]) => `${k} ${v}`).join(', ')}; errors ${errors}; ${CONCURRENCY} at a time for ${SECONDS} s; load average ${loadBefore} before`,
  });
  const report = {
    name: 'memory',
    date: new Date().toISOString(),
    environment: { ...environment(), WORKERS },
    results,
  };
  console.log(markdown(report));
  await writeReport(report);
} finally {
  await db.drop();
}
