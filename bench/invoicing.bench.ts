// Invoicing throughput: create-and-book per second (sequential and 10 at a time) and the PDF
// render time of a 20-line invoice. Runs on a fresh temporary SQLite file, and on PostgreSQL
// too when BENCH_DATABASE_URL is set. `npx tsx bench/invoicing.bench.ts`
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDb, type DbHandle } from '../src/db/index.js';
import { importData } from '../src/import/index.js';
import { renderDocumentPdf } from '../src/shared/pdf/render.js';
import { benchToken, caller, environment, type Metric, markdown, writeReport } from './lib.js';

type Result = Metric;

const SEQUENTIAL = 150;
const CONCURRENT = 150;
const PDF_RUNS = 15;

async function openDb(
  kind: 'sqlite' | 'postgres',
): Promise<{ handle: DbHandle; cleanup: () => Promise<void> }> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'bench-invoicing-'));
    const handle = createDb({ kind: 'sqlite', file: join(dir, 'bench.sqlite') });
    return { handle, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const url = process.env.BENCH_DATABASE_URL!;
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const handle = createDb({ kind: 'postgres', url, schema });
  return {
    handle,
    cleanup: async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`drop schema ${schema} cascade`);
      await c.end();
    },
  };
}

const lines = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    title: `Position ${i + 1}`,
    quantity: 1.5 + i,
    unit: 'h',
    unit_price: 95.5,
    tax_rate: i % 3 === 0 ? 7 : 19,
  }));

async function rendererWorks(): Promise<boolean> {
  try {
    await renderDocumentPdf({
      kind: 'invoice',
      title: 'Invoice',
      number: null,
      date: null,
      currency: 'EUR',
      seller: { name: 'S' },
      buyer: { name: 'B' },
      lines: [],
      taxes: [],
      net_total: '0.00',
      tax_total: '0.00',
      gross_total: '0.00',
      booked: false,
    });
    return true;
  } catch {
    return false;
  }
}

async function benchKind(kind: 'sqlite' | 'postgres', withPdf: boolean): Promise<Result[]> {
  const { handle, cleanup } = await openDb(kind);
  const app = await buildApp(
    loadConfig({ LOG_LEVEL: 'silent', RUN_WORKER: 'false', RATE_LIMIT_PER_MINUTE: '0' }),
    {
      db: handle,
      logger: false,
    },
  );
  try {
    const { account_id } = await importData(handle.db, {
      account: { name: 'Bench', settings: { vat_id: 'DE999999999', iban: 'DE02120300000000202051' } },
      users: [{ email: 'bench@bench.example', first_name: 'B', last_name: 'Ench', role: 'admin' }],
      clients: [{ name: 'Bench client', payment_term_days: 14 }],
    });
    const scopes = ['outgoing-invoice:read', 'outgoing-invoice:write', 'outgoing-invoice:book'];
    const call = caller(app, await benchToken(handle.db, scopes, account_id));
    const clientRow = await handle.db
      .selectFrom('clients')
      .select('id')
      .where('account_id', '=', account_id)
      .executeTakeFirstOrThrow();
    const createAndBook = async () => {
      const created = await call('POST', '/outgoing-invoices', {
        client_id: clientRow.id,
        line_items: lines(3),
      });
      await call('POST', `/outgoing-invoices/${JSON.parse(created.body).data.id}/book`, {});
    };
    for (let i = 0; i < 10; i++) await createAndBook(); // warm-up
    let t = performance.now();
    for (let i = 0; i < SEQUENTIAL; i++) await createAndBook();
    const sequential = SEQUENTIAL / ((performance.now() - t) / 1000);
    t = performance.now();
    for (let i = 0; i < CONCURRENT; i += 10) await Promise.all(Array.from({ length: 10 }, createAndBook));
    const concurrent = CONCURRENT / ((performance.now() - t) / 1000);
    const results: Result[] = [
      {
        metric: `${kind}: create + book, sequential`,
        value: Math.round(sequential),
        unit: 'invoices/s',
        note: '3 lines',
      },
      {
        metric: `${kind}: create + book, 10 concurrent`,
        value: Math.round(concurrent),
        unit: 'invoices/s',
        note: '3 lines',
      },
    ];
    if (withPdf) {
      const draft = await call('POST', '/outgoing-invoices', {
        client_id: clientRow.id,
        line_items: lines(20),
      });
      const id = JSON.parse(draft.body).data.id;
      await call('GET', `/outgoing-invoices/${id}/pdf`);
      t = performance.now();
      for (let i = 0; i < PDF_RUNS; i++) await call('GET', `/outgoing-invoices/${id}/pdf`);
      results.push({
        metric: `${kind}: PDF of a 20-line draft invoice`,
        value: Math.round(((performance.now() - t) / PDF_RUNS) * 10) / 10,
        unit: 'ms',
        note: 'rendered on every request (booked invoices are rendered once and stored)',
      });
    }
    return results;
  } finally {
    await app.close();
    await handle.destroy();
    await cleanup();
  }
}

const withPdf = await rendererWorks();
const results: Result[] = [];
results.push(...(await benchKind('sqlite', withPdf)));
if (process.env.BENCH_DATABASE_URL) results.push(...(await benchKind('postgres', withPdf)));

const report = { name: 'invoicing', date: new Date().toISOString(), environment: environment(), results };
console.log(markdown(report));
if (!withPdf) console.log('PDF render time skipped: renderDocumentPdf is not implemented yet.');
await writeReport(report);
