// Sending invoices by e-mail (issue 38): 1,000 booked invoices queued with
// POST /outgoing-invoices/{id}/send, then sent by the mail worker (in the API's process, as it
// runs by default) to a local SMTP server (smtp-server on loopback). Measured: the queueing
// (requests/s: the PDF of each is rendered and kept with the message), the messages per second
// the worker gets out, and the p99 of other API requests (GET /outgoing-invoices/{id},
// GET /clients by four clients) while they go out, target under 100 ms. On a fresh SQLite
// file, and on PostgreSQL too when BENCH_DATABASE_URL is set.
// `npx tsx bench/mail.bench.ts`; BENCH_MAIL_INVOICES=50 for a smoke run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { SMTPServer } from 'smtp-server';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDb, type DbHandle } from '../src/db/index.js';
import { importData } from '../src/import/index.js';
import { MailWorker } from '../src/modules/mail/mail.public.js';
import {
  benchToken,
  type Caller,
  caller,
  environment,
  type Metric,
  machineLoad,
  markdown,
  writeReport,
} from './lib.js';
import { freshPgDatabase } from './seed.js';

const TOTAL = Number(process.env.BENCH_MAIL_INVOICES ?? 1000);
const CLIENTS = 50;
const READERS = 4;
/** Send requests in flight at once while queueing. */
const SENDERS = 4;
const FROM = 'invoices@bench.example';

async function openDb(
  kind: 'sqlite' | 'postgres',
): Promise<{ handle: DbHandle; cleanup: () => Promise<void> }> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'bench-mail-'));
    const handle = createDb({ kind: 'sqlite', file: join(dir, 'bench.sqlite') });
    return { handle, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const fresh = await freshPgDatabase(process.env.BENCH_DATABASE_URL!);
  const handle = createDb({ kind: 'postgres', url: fresh.url });
  return { handle, cleanup: fresh.drop };
}

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

/** A relay that takes every message and only counts it (no parsing: the bench measures the sender). */
async function relay(): Promise<{ port: number; received: () => number; close: () => Promise<void> }> {
  let count = 0;
  const server = new SMTPServer({
    logger: false,
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    size: 20 * 1024 * 1024,
    onData(stream, _session, cb) {
      stream.on('data', () => {});
      stream.on('end', () => {
        count++;
        cb();
      });
    },
  });
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  return {
    port,
    received: () => count,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function seed(handle: DbHandle): Promise<{ accountId: number; token: string }> {
  const { account_id } = await importData(handle.db, {
    account: {
      name: 'Bench',
      country_code: 'DE',
      settings: { vat_id: 'DE999999999', iban: 'DE02120300000000202051', email: 'billing@bench.example' },
    },
    users: [{ email: 'bench@bench.example', first_name: 'B', last_name: 'Ench', role: 'admin' }],
    clients: Array.from({ length: CLIENTS }, (_, c) => ({
      key: `c${c}`,
      name: `Client ${c}`,
      email: `office${c}@client.example`,
      language: c % 2 ? 'de' : 'en',
    })),
    outgoing_invoices: Array.from({ length: TOTAL }, (_, i) => ({
      key: `i${i}`,
      status: 'booked',
      invoice_number: `M-${String(i).padStart(6, '0')}`,
      client: `c${i % CLIENTS}`,
      date: '2026-11-02',
      due_date: '2026-11-16',
      line_items: [
        { title: 'Design', quantity: 8, unit_price: 95, tax_rate: 19 },
        { title: 'Hosting', quantity: 1, unit_price: 20 + (i % 50), tax_rate: 19 },
      ],
    })),
  } as never);
  await sql`analyze`.execute(handle.db);
  const scopes = ['outgoing-invoice:read', 'outgoing-invoice:send', 'client:read'];
  return { accountId: account_id, token: await benchToken(handle.db, scopes, account_id) };
}

/** Runs `work` while READERS clients read one after another; their latencies, and the work's time. */
async function whileReading(
  call: Caller,
  ids: number[],
  work: () => Promise<unknown>,
): Promise<{ ms: number; latencies: number[] }> {
  let done = false;
  const latencies: number[] = [];
  const reader = async (r: number) => {
    for (let n = r; !done; n += READERS) {
      const t = performance.now();
      await call(
        'GET',
        n % 2 ? `/outgoing-invoices/${ids[(n * 7919) % ids.length]}` : '/clients?per_page=20',
      );
      latencies.push(performance.now() - t);
    }
  };
  const readers = Array.from({ length: READERS }, (_, r) => reader(r));
  const t = performance.now();
  await work();
  const ms = performance.now() - t;
  done = true;
  await Promise.all(readers);
  return { ms, latencies };
}

async function benchKind(kind: 'sqlite' | 'postgres'): Promise<Metric[]> {
  const { handle, cleanup } = await openDb(kind);
  const smtp = await relay();
  const smtpUrl = `smtp://127.0.0.1:${smtp.port}`;
  const app = await buildApp(
    loadConfig({
      LOG_LEVEL: 'silent',
      RUN_WORKER: 'false',
      RATE_LIMIT_PER_MINUTE: '0',
      PAGE_CACHE_MB: '0',
      SMTP_URL: smtpUrl,
      MAIL_FROM: FROM,
    }),
    { db: handle, logger: false },
  );
  const worker = new MailWorker(handle.db, handle.kind, { mail: { smtpUrl, from: FROM, dkim: null } });
  try {
    const { accountId, token } = await seed(handle);
    const call = caller(app, token);
    const ids = (
      await handle.db
        .selectFrom('outgoing_invoices')
        .select('id')
        .where('account_id', '=', accountId)
        .orderBy('id')
        .execute()
    ).map((r) => r.id);
    for (let i = 0; i < 20; i++) await call('GET', `/outgoing-invoices/${ids[i]}`);

    // 1. Queue every invoice (SENDERS requests at once), readers alongside.
    let next = 0;
    const queued = await whileReading(call, ids, () =>
      Promise.all(
        Array.from({ length: SENDERS }, async () => {
          while (next < ids.length) await call('POST', `/outgoing-invoices/${ids[next++]}/send`, {});
        }),
      ),
    );
    // 2. The worker sends them, readers alongside.
    const sentCount = async () =>
      Number(
        (
          await handle.db
            .selectFrom('mail_messages')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('status', '=', 'sent')
            .executeTakeFirstOrThrow()
        ).n,
      );
    const sending = await whileReading(call, ids, async () => {
      worker.start();
      while ((await sentCount()) < TOTAL) await new Promise((r) => setTimeout(r, 25));
    });
    if (smtp.received() < TOTAL) throw new Error(`the relay got ${smtp.received()} of ${TOTAL}`);
    const failed = await handle.db
      .selectFrom('mail_messages')
      .select('id')
      .where('status', '=', 'failed')
      .execute();
    if (failed.length > 0) throw new Error(`${failed.length} messages failed`);

    const n = TOTAL.toLocaleString('en');
    return [
      {
        metric: `${kind}: queueing (POST …/send)`,
        value: Math.round((TOTAL / queued.ms) * 1000 * 10) / 10,
        unit: 'requests/s',
        note: `${n} booked invoices, ${SENDERS} at once; each renders and keeps its PDF; ${Math.round(queued.ms)} ms in all`,
      },
      {
        metric: `${kind}: p99 of other requests while queueing`,
        value: Math.round(percentile(queued.latencies, 99) * 10) / 10,
        unit: 'ms',
        note: `${queued.latencies.length} requests by ${READERS} clients; p50 ${percentile(queued.latencies, 50).toFixed(1)} ms`,
      },
      {
        metric: `${kind}: messages sent`,
        value: Math.round((TOTAL / sending.ms) * 1000 * 10) / 10,
        unit: 'messages/s',
        note: `${n} messages with their PDF to smtp-server on loopback, worker in the API process (concurrency 4); ${Math.round(sending.ms)} ms in all`,
      },
      {
        metric: `${kind}: p99 of other requests while they go out`,
        value: Math.round(percentile(sending.latencies, 99) * 10) / 10,
        unit: 'ms',
        note: `${sending.latencies.length} requests by ${READERS} clients (GET /outgoing-invoices/{id}, GET /clients); p50 ${percentile(sending.latencies, 50).toFixed(1)} ms; target < 100; load ${machineLoad()}`,
      },
    ];
  } finally {
    await worker.stop();
    await app.close();
    await smtp.close();
    await handle.destroy();
    await cleanup();
  }
}

const results: Metric[] = [];
results.push(...(await benchKind('sqlite')));
if (process.env.BENCH_DATABASE_URL) results.push(...(await benchKind('postgres')));
const report = { name: 'mail', date: new Date().toISOString(), environment: environment(), results };
console.log(markdown(report));
await writeReport(report);
