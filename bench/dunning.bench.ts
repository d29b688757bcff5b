// The dunning run (issue 39): POST /dunning/run over 100,000 booked invoices of which 10,000 are
// overdue and open (a tenth of those partly paid), 80,000 overdue and paid, 10,000 not yet due;
// the level-1 run (10,000 reminders), the same day again (nothing to make), and the level-2 run
// (10,000 dunning letters with fees and interest). Meanwhile four clients keep reading
// (GET /outgoing-invoices/{id}, GET /clients) against the same process, and their p99 is
// measured. Targets: a run under 10 s, the other requests' p99 under 100 ms. On a fresh SQLite
// file, and on PostgreSQL too when BENCH_DATABASE_URL is set.
// `npx tsx bench/dunning.bench.ts`; BENCH_DUNNING_INVOICES=2000 for a smoke run (a tenth overdue).
// On PostgreSQL the invoices are written a tenth at a time in multi-row statements (`seedRows`):
// the import's statement per row fires the statement-level triggers (change feed, counts, table
// versions) 300,000 times in one transaction, which did not finish in 8 minutes.
// BENCH_DUNNING_SEED=import takes the import there too (to compare the rows at a small size);
// BENCH_DUNNING_SQLITE=off measures PostgreSQL alone; BENCH_DUNNING_ANALYZE=1 analyses the letters
// after each run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDb, type Db, type DbHandle } from '../src/db/index.js';
import { refreshStatistics } from '../src/db/statistics.js';
import { transact } from '../src/db/transact.js';
import { importData } from '../src/import/index.js';
import { createIntegration } from '../src/modules/integration/integration.service.js';
import { withLineTotals } from '../src/modules/outgoing-invoices/invoices.repository.js';
import { parseLineItems, positioned } from '../src/modules/outgoing-invoices/line-items.js';
import { toCents } from '../src/shared/money.js';
import { insertRowsReturning } from '../src/shared/owned.js';
import { caller, environment, type Metric, machineLoad, markdown, writeReport } from './lib.js';
import { freshPgDatabase } from './seed.js';

const TOTAL = Number(process.env.BENCH_DUNNING_INVOICES ?? 100_000);
const OPEN = Math.round(TOTAL / 10);
const NOT_DUE = Math.round(TOTAL / 10);
const PAID = TOTAL - OPEN - NOT_DUE;
const CLIENTS = 200;
const READERS = 4;

async function openDb(
  kind: 'sqlite' | 'postgres',
): Promise<{ handle: DbHandle; cleanup: () => Promise<void> }> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'bench-dunning-'));
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

/** Invoice `i`: 1,190.00 or so, dated January; which group it is in decides its due date and payments. */
function invoice(i: number) {
  const group = i < OPEN ? 'open' : i < OPEN + PAID ? 'paid' : 'not_due';
  const net = 500 + (i % 500);
  const gross = Math.round(net * 119) / 100;
  return {
    key: `i${i}`,
    status: 'booked',
    invoice_number: `B-${String(i).padStart(7, '0')}`,
    client: `c${i % CLIENTS}`,
    date: '2026-01-15',
    due_date: group === 'not_due' ? '2026-12-31' : '2026-01-29',
    line_items: [{ title: 'Work', quantity: 1, unit_price: net, tax_rate: 19 }],
    payments:
      group === 'paid'
        ? [{ payment_account: 'bank', amount: gross, date: '2026-02-10' }]
        : group === 'open' && i % 10 === 0
          ? [{ payment_account: 'bank', amount: 100, date: '2026-02-20' }]
          : [],
  };
}

type Invoice = ReturnType<typeof invoice>;

/**
 * The invoices as the import writes them (invoices.import.ts: the same row values, lines parsed
 * and totalled by the same functions, payments into the ledger), but a tenth of them at a time:
 * one statement per table and transaction instead of one per row.
 */
async function seedRows(db: Db, accountId: number, invoices: Invoice[]): Promise<void> {
  const account = await db
    .selectFrom('accounts')
    .select('currency')
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  const clientIds = new Map(
    (await db.selectFrom('clients').select(['id', 'name']).where('account_id', '=', accountId).execute()).map(
      (c) => [c.name, c.id],
    ),
  );
  const bank = await db
    .selectFrom('payment_accounts')
    .select('id')
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  const now = new Date().toISOString();
  const chunk = Math.max(1, Math.ceil(invoices.length / 10));
  for (let from = 0; from < invoices.length; from += chunk) {
    const part = invoices.slice(from, from + chunk);
    const lines = part.map((inv) => parseLineItems(inv.line_items));
    await transact(db, async (trx) => {
      const rows = await insertRowsReturning(
        trx,
        'outgoing_invoices',
        part.map((inv, k) =>
          withLineTotals(
            {
              account_id: accountId,
              type: 'invoice',
              status: 'booked',
              invoice_number: inv.invoice_number,
              client_id: clientIds.get(`Client ${inv.client.slice(1)}`)!,
              project_id: null,
              contact_id: null,
              credited_invoice_id: null,
              title: null,
              date: inv.date,
              due_date: inv.due_date,
              payment_term_days: null,
              service_period_start: null,
              service_period_end: null,
              currency: account.currency,
              intro_text: null,
              closing_text: null,
              booked_at: now,
            },
            lines[k]!,
          ),
        ),
      );
      // Every column set on every row (null, not left out): one JSON parameter a statement.
      const items = rows.flatMap((row, k) =>
        positioned(lines[k]!, { account_id: accountId, invoice_id: row.id }).map((l) => ({
          ...l,
          description: l.description ?? null,
          unit: l.unit ?? null,
          discount: l.discount ?? null,
        })),
      );
      await insertRowsReturning(trx, 'outgoing_invoice_items', items);
      const payments = rows.flatMap((row, k) =>
        part[k]!.payments.map((p) => ({
          account_id: accountId,
          type: 'outgoing_invoice' as const,
          invoice_id: row.id,
          payment_account_id: bank.id,
          amount: toCents(p.amount)!,
          currency: row.currency,
          date: p.date,
          description: null,
        })),
      );
      await insertRowsReturning(trx, 'payments', payments);
    });
  }
  await refreshStatistics(db);
}

async function seed(handle: DbHandle): Promise<{ accountId: number; token: string }> {
  const db = handle.db;
  const invoices = Array.from({ length: TOTAL }, (_, i) => invoice(i));
  const byRows = handle.kind === 'postgres' && process.env.BENCH_DUNNING_SEED !== 'import';
  const { account_id } = await importData(db, {
    account: {
      name: 'Bench',
      country_code: 'DE',
      settings: { vat_id: 'DE999999999', iban: 'DE02120300000000202051' },
    },
    users: [{ email: 'bench@bench.example', first_name: 'B', last_name: 'Ench', role: 'admin' }],
    payment_accounts: [{ key: 'bank', name: 'Bank' }],
    clients: Array.from({ length: CLIENTS }, (_, c) => ({
      key: `c${c}`,
      name: `Client ${c}`,
      language: c % 2 ? 'de' : 'en',
    })),
    // One import (one transaction): later imports could not name these clients by key.
    ...(byRows ? {} : { outgoing_invoices: invoices }),
  } as never);
  if (byRows) await seedRows(db, account_id, invoices);
  await sql`analyze`.execute(db);
  const { access_token } = await createIntegration(db, {
    name: 'bench',
    scopes: ['outgoing-invoice:read', 'client:read', 'dunning:read', 'dunning:write'],
    accountId: account_id,
  });
  return { accountId: account_id, token: access_token };
}

/** Runs `work` while READERS clients read one after another; their latencies, and the work's time. */
async function whileReading(
  call: ReturnType<typeof caller>,
  ids: number[],
  work: () => Promise<unknown>,
): Promise<{ ms: number; latencies: number[]; result: unknown }> {
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
  const result = await work();
  const ms = performance.now() - t;
  done = true;
  await Promise.all(readers);
  return { ms, latencies, result };
}

async function benchKind(kind: 'sqlite' | 'postgres'): Promise<Metric[]> {
  const { handle, cleanup } = await openDb(kind);
  const app = await buildApp(
    loadConfig({ LOG_LEVEL: 'silent', RUN_WORKER: 'false', RATE_LIMIT_PER_MINUTE: '0', PAGE_CACHE_MB: '0' }),
    { db: handle, logger: false },
  );
  try {
    let t = performance.now();
    const { accountId, token } = await seed(handle);
    const seedS = (performance.now() - t) / 1000;
    const call = caller(app, token);
    const ids = (
      await handle.db
        .selectFrom('outgoing_invoices')
        .select('id')
        .where('account_id', '=', accountId)
        .orderBy('id')
        .execute()
    ).map((r) => r.id);
    // Warm the routes the readers and the run take.
    for (let i = 0; i < 20; i++) await call('GET', `/outgoing-invoices/${ids[i]}`);
    await call('POST', '/dunning/run', { date: '2026-02-01', dry_run: true });

    const results: Metric[] = [];
    const quiet = await whileReading(call, ids, () => new Promise((r) => setTimeout(r, 2000)));
    results.push({
      metric: `${kind}: p99 of the same requests without a run`,
      value: Math.round(percentile(quiet.latencies, 99) * 10) / 10,
      unit: 'ms',
      note: `${quiet.latencies.length} requests in 2 s; p50 ${percentile(quiet.latencies, 50).toFixed(1)} ms`,
    });
    const runOn = async (date: string, label: string, expect: number) => {
      const r = await whileReading(call, ids, () => call('POST', '/dunning/run', { date }));
      const made = JSON.parse((r.result as { body: string }).body).data.created.length;
      if (made !== expect) throw new Error(`${label}: made ${made} letters, expected ${expect}`);
      // Diagnosis: the statistics autovacuum would have a minute later (the run's 10,000 new
      // letters otherwise leave PostgreSQL planning for an empty dunning_letters).
      if (process.env.BENCH_DUNNING_ANALYZE === '1') await sql`analyze dunning_letters`.execute(handle.db);
      results.push(
        {
          metric: `${kind}: dunning run, ${label}`,
          value: Math.round(r.ms),
          unit: 'ms',
          note: `${TOTAL.toLocaleString('en')} booked invoices, ${OPEN.toLocaleString('en')} overdue and open; ${made.toLocaleString('en')} letters; target < 10000`,
        },
        {
          metric: `${kind}: p99 of other requests during it`,
          value: Math.round(percentile(r.latencies, 99) * 10) / 10,
          unit: 'ms',
          note: `${r.latencies.length} requests by ${READERS} clients (GET /outgoing-invoices/{id}, GET /clients); p50 ${percentile(r.latencies, 50).toFixed(1)} ms; target < 100`,
        },
      );
    };
    await runOn('2026-02-05', 'level 1 (reminders)', OPEN);
    await runOn('2026-02-05', 'the same day again', 0);
    await runOn('2026-02-19', 'level 2 (fees, lump sum, interest)', OPEN);
    t = performance.now();
    results.push({
      metric: `${kind}: seeding`,
      value: Math.round(seedS),
      unit: 's',
      note: `${kind === 'postgres' && process.env.BENCH_DUNNING_SEED !== 'import' ? 'multi-row inserts' : 'import'} of ${TOTAL.toLocaleString('en')} booked invoices; load ${machineLoad()}`,
    });
    return results;
  } finally {
    await app.close();
    await handle.destroy();
    await cleanup();
  }
}

const results: Metric[] = [];
if (process.env.BENCH_DUNNING_SQLITE !== 'off') results.push(...(await benchKind('sqlite')));
if (process.env.BENCH_DATABASE_URL) results.push(...(await benchKind('postgres')));
const report = { name: 'dunning', date: new Date().toISOString(), environment: environment(), results };
console.log(markdown(report));
await writeReport(report);
