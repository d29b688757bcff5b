/**
 * Webhook delivery: events delivered per second and event-to-delivery latency, with a real
 * receiver on loopback. Runs on a fresh temp SQLite database, and on PostgreSQL too when
 * BENCH_DATABASE_URL is set. About 10 s per database.
 *
 *   npx tsx bench/webhooks.bench.ts
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createDb, type DbHandle } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { importData } from '../src/import/index.js';
import { createIntegration } from '../src/modules/integration/integration.service.js';
import { createWebhook } from '../src/modules/webhooks/webhooks.service.js';
import { WebhookWorker, wakeWebhookWorkers } from '../src/modules/webhooks/webhooks.worker.js';
import type { AuthContext } from '../src/plugins/auth.js';
import { recordEvent } from '../src/shared/events.js';

const SECRET_KEY = 'bench-secret-key';
const POLL_MS = 100;

interface Result {
  metric: string;
  value: number;
  unit: string;
  note?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? Number.NaN;
};
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

/** Receiver on loopback: arrival time of each event's `data.seq`. */
async function receiver() {
  const arrivals = new Map<number, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seq = JSON.parse(Buffer.concat(chunks).toString()).data.seq as number;
      if (!arrivals.has(seq)) arrivals.set(seq, performance.now());
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () => {
    server.closeAllConnections();
    return new Promise((r) => server.close(r));
  };
  return { arrivals, url, close };
}

async function waitUntil(cond: () => boolean, timeoutMs: number) {
  const until = Date.now() + timeoutMs;
  while (!cond() && Date.now() < until) await sleep(2);
}

async function openDb(
  kind: 'sqlite' | 'postgres',
): Promise<{ handle: DbHandle; cleanup: () => Promise<void> }> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'webhooks-bench-'));
    const handle = createDb({ kind: 'sqlite', file: join(dir, 'bench.sqlite') });
    return { handle, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const url = process.env.BENCH_DATABASE_URL!;
  const schema = `bench_webhooks_${Date.now()}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  const handle = createDb({ kind: 'postgres', url, schema });
  return {
    handle,
    cleanup: async () => {
      await admin.query(`drop schema ${schema} cascade`);
      await admin.end();
    },
  };
}

async function run(kind: 'sqlite' | 'postgres'): Promise<Result[]> {
  const { handle, cleanup } = await openDb(kind);
  const db = handle.db;
  await migrateToLatest(db);
  const { account_id: accountId } = await importData(db, {
    account: { name: 'Bench' },
    users: [{ email: 'bench@example.com', first_name: 'B', last_name: 'Ench', role: 'admin' }],
  });
  const integration = await createIntegration(db, { name: 'bench', scopes: ['integration'], accountId });
  const auth: AuthContext = {
    accountId,
    userId: integration.user_id,
    integrationId: integration.id,
    tokenId: 0,
    scopes: new Set(['integration']),
  };
  const rx = await receiver();
  const settings = { secretKey: SECRET_KEY, allowPrivate: true };
  const hooks: number[] = [];
  const addHook = async () =>
    hooks.push(
      (await createWebhook(db, auth, { url: `${rx.url}/in`, scopes: ['task:update'] }, settings)).id,
    );
  await addHook();

  const worker = new WebhookWorker(db, handle.kind, { ...settings, pollIntervalMs: POLL_MS });
  worker.start();
  let seq = 0;
  const sentAt = new Map<number, number>();
  const emit = async (wake: boolean) => {
    const n = ++seq;
    await db.transaction().execute((trx) =>
      recordEvent(trx, {
        accountId,
        kind: 'task:updated',
        resourceType: 'task',
        resourceId: n,
        data: { id: n, seq: n, title: `Task ${n}`, status: 'open', updated_at: new Date().toISOString() },
      }),
    );
    sentAt.set(n, performance.now());
    if (wake) wakeWebhookWorkers();
    return n;
  };
  const latencies = (from: number, to: number) => {
    const xs: number[] = [];
    for (let i = from; i <= to; i++) xs.push((rx.arrivals.get(i) ?? Number.NaN) - sentAt.get(i)!);
    return xs;
  };

  // 1. Latency at a steady 100 events/s: an event from another process (found by polling),
  //    and one committed by this process's API (which wakes the worker on commit).
  const steady = async (wake: boolean) => {
    const first = seq + 1;
    const until = performance.now() + 2000;
    while (performance.now() < until) {
      await emit(wake);
      await sleep(10);
    }
    await waitUntil(() => rx.arrivals.size >= seq, 5000);
    return latencies(first, seq);
  };
  const polled = await steady(false);
  const woken = await steady(true);

  // 2. Throughput: a backlog of 800 events to one webhook (serial, in order), then 200 to 8.
  const burst = async (events: number) => {
    const first = seq + 1;
    const chunk = 250;
    for (let i = 0; i < events; i += chunk) {
      await db.transaction().execute(async (trx) => {
        for (let j = 0; j < chunk; j++) {
          const n = ++seq;
          await recordEvent(trx, {
            accountId,
            kind: 'task:updated',
            resourceType: 'task',
            resourceId: n,
            data: { id: n, seq: n, title: `Task ${n}`, status: 'open' },
          });
        }
      });
    }
    const t0 = performance.now();
    wakeWebhookWorkers();
    const expected = (seq - first + 1) * hooks.length;
    const count = async () =>
      Number(
        (
          await db
            .selectFrom('webhook_deliveries')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('status', '=', 'delivered')
            .where('event_id', '>=', first)
            .executeTakeFirstOrThrow()
        ).n,
      );
    while ((await count()) < expected && performance.now() - t0 < 20_000) await sleep(20);
    return { deliveries: await count(), seconds: (performance.now() - t0) / 1000 };
  };
  const one = await burst(800);
  for (let i = 0; i < 7; i++) await addHook();
  const eight = await burst(200);

  await worker.stop();
  await rx.close();
  await db.destroy();
  await cleanup();

  const note = `${kind}, poll ${POLL_MS} ms`;
  return [
    {
      metric: `${kind}: deliveries/s, one webhook (serial, in order)`,
      value: round(one.deliveries / one.seconds, 0),
      unit: 'deliveries/s',
      note,
    },
    {
      metric: `${kind}: deliveries/s, 8 webhooks`,
      value: round(eight.deliveries / eight.seconds, 0),
      unit: 'deliveries/s',
      note,
    },
    {
      metric: `${kind}: latency p50, woken on commit`,
      value: round(pct(woken, 50)),
      unit: 'ms',
      note: '100 events/s',
    },
    {
      metric: `${kind}: latency p99, woken on commit`,
      value: round(pct(woken, 99)),
      unit: 'ms',
      note: '100 events/s',
    },
    {
      metric: `${kind}: latency p50, by polling`,
      value: round(pct(polled, 50)),
      unit: 'ms',
      note: 'event from another process',
    },
    {
      metric: `${kind}: latency p99, by polling`,
      value: round(pct(polled, 99)),
      unit: 'ms',
      note: 'event from another process',
    },
  ];
}

const results: Result[] = [...(await run('sqlite'))];
if (process.env.BENCH_DATABASE_URL) results.push(...(await run('postgres')));

console.log('| metric | value | unit | note |\n|---|---:|---|---|');
for (const r of results) console.log(`| ${r.metric} | ${r.value} | ${r.unit} | ${r.note ?? ''} |`);
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(
  new URL('./results/webhooks.json', import.meta.url),
  `${JSON.stringify({ name: 'webhooks', date: new Date().toISOString(), results }, null, 2)}\n`,
);
