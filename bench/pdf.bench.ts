/**
 * PDF rendering: wall time of renderDocumentPdf for a booked 10-line and 100-line invoice
 * (layout, font subsetting, Factur-X XML and embedding). Pure CPU; no database involved.
 * Then a booked invoice's PDF served over HTTP (kept at its first request, issue 44 point 5)
 * by the service as `npm start` runs it on SQLite, side by side with the bare route (lib.ts
 * `besideBare`); target ≥ 20 % of the bare route. Beside the share of requests a second, the
 * share of CPU: the bare route's CPU time per request over the service's (bench/cpu.ts), which
 * moves far less when other work on the machine takes the CPU from both (and from the load
 * generator, which reads every PDF). `PDF_SERVED=off` skips that part.
 * Run: npx tsx bench/pdf.bench.ts
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { importData } from '../src/import/index.js';
import { createIntegration } from '../src/modules/integration/integration.service.js';
import { renderDocumentPdf } from '../src/shared/pdf/render.js';
import { sampleDocument } from '../src/shared/pdf/sample.js';
import { cpuNow } from './cpu.js';
import {
  type BenchReport,
  besideBare,
  environment,
  type Metric,
  machineLoad,
  markdown,
  SECONDS,
  SIDE_BY_SIDE,
  startChild,
  startService,
  stopChild,
  writeReport,
} from './lib.js';

/** A booked invoice of 10 lines in a fresh SQLite file; its path for GET and a token. */
async function bookedInvoice(file: string): Promise<{ path: string; token: string }> {
  const handle = createDb(loadConfig({ DATABASE_URL: file }).db);
  try {
    await migrateToLatest(handle.db);
    // A seller and a buyer with everything a booking asks for (§14 UStG, XRechnung).
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
      clients: [
        {
          name: 'Bench client',
          payment_term_days: 14,
          street: 'Kundenweg 7',
          zip: '20095',
          city: 'Hamburg',
          country_code: 'DE',
        },
      ],
    });
    const { access_token: token } = await createIntegration(handle.db, {
      name: 'bench',
      scopes: ['outgoing-invoice:read', 'outgoing-invoice:write', 'outgoing-invoice:book'],
      accountId: account_id,
    });
    const app = await buildApp(loadConfig({ LOG_LEVEL: 'silent', RUN_WORKER: 'false' }), {
      db: handle,
      logger: false,
    });
    try {
      const client = await handle.db
        .selectFrom('clients')
        .select('id')
        .where('account_id', '=', account_id)
        .executeTakeFirstOrThrow();
      const call = async (url: string, payload: object) => {
        const res = await app.inject({
          method: 'POST',
          url: `/api/v1${url}`,
          headers: { authorization: `Bearer ${token}` },
          payload,
        });
        if (res.statusCode >= 300) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
        return JSON.parse(res.body).data;
      };
      const lines = Array.from({ length: 10 }, (_, i) => ({
        title: `Position ${i + 1}`,
        quantity: 1 + i,
        unit_price: 95.5,
        tax_rate: 19,
      }));
      const { id } = await call('/outgoing-invoices', { client_id: client.id, line_items: lines });
      await call(`/outgoing-invoices/${id}/book`, {});
      return { path: `/api/v1/outgoing-invoices/${id}/pdf`, token };
    } finally {
      await app.close();
    }
  } finally {
    await handle.destroy();
  }
}

/** GET of a booked invoice's PDF against the bare route, the service as `npm start` runs it. */
async function served(): Promise<Metric[]> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-pdf-'));
  try {
    const file = join(dir, 'bench.sqlite');
    const { path, token } = await bookedInvoice(file);
    // The bare route started here rather than by startBare: its process id is needed for its CPU.
    const bare = await startChild('child-bare.ts', {});
    const bareUrl = `http://127.0.0.1:${bare.port}/bare`;
    await autocannon({ connections: 50, duration: 3, url: bareUrl });
    const api = await startService({ DATABASE_URL: file, RATE_LIMIT_PER_MINUTE: '100000000' });
    try {
      const url = `http://127.0.0.1:${api.port}`;
      const headers = { authorization: `Bearer ${token}` };
      // The first request renders and keeps it; a benchmark of 4xx answers measures nothing.
      const first = await fetch(url + path, { headers });
      if (first.status !== 200) throw new Error(`${path} answered ${first.status}`);
      const bytes = Buffer.from(await first.arrayBuffer()).length;
      const pids = { api: [api.child.pid!], bare: [bare.child.pid!] };
      let from = { api: 0, bare: 0 };
      const b = await besideBare(bareUrl, { url, headers, requests: [{ method: 'GET', path }] }, async () => {
        from = { api: cpuNow(pids.api).own, bare: cpuNow(pids.bare).own };
      });
      // CPU µs a request over the turns (each process idles during the other's).
      const apiCpu = ((cpuNow(pids.api).own - from.api) * 1000) / (b.result.rps * SECONDS);
      const bareCpu = ((cpuNow(pids.bare).own - from.bare) * 1000) / (b.bare.rps * SECONDS);
      const share = b.result.rps / b.bare.rps;
      const cpuShare = bareCpu / apiCpu;
      return [
        {
          metric: 'GET a booked invoice PDF (10 lines, kept), SQLite',
          value: b.result.rps,
          unit: 'req/s',
          note: `${(share * 100).toFixed(1)} % of the bare route beside it (${b.bare.rps} req/s; target ≥ 20 %: ${share >= 0.2 ? 'met' : 'NOT met'}); p50 ${b.result.p50} ms, p99 ${b.result.p99} ms; ${Math.round(bytes / 1024)} KiB; errors/non-2xx ${b.result.errors + b.result.non2xx}; load ${machineLoad()}; ${SIDE_BY_SIDE}`,
        },
        {
          metric: 'GET a booked invoice PDF (kept), CPU share of the bare route',
          value: Math.round(cpuShare * 1000) / 10,
          unit: '%',
          note: `${Math.round(apiCpu)} µs of the service's CPU a request, ${Math.round(bareCpu)} µs of the bare route's`,
        },
      ];
    } finally {
      await stopChild(api.child);
      await stopChild(bare.child);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const RUNS = 50;

function percentile(sorted: number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)]!;
}

const round = (ms: number) => Math.round(ms * 10) / 10;

async function main() {
  const results: Metric[] = [];

  // The first render of a process parses the font files' layout tables once.
  let t = performance.now();
  await renderDocumentPdf(sampleDocument({ lines: 1 }));
  results.push({
    metric: 'first render (cold)',
    value: round(performance.now() - t),
    unit: 'ms',
    note: '1 line',
  });

  for (const lines of [10, 100]) {
    const doc = sampleDocument({ lines, language: 'de' });
    await renderDocumentPdf(doc); // warm-up for this size
    const times: number[] = [];
    let bytes = 0;
    const cpu = process.cpuUsage();
    for (let i = 0; i < RUNS; i++) {
      t = performance.now();
      const buf = await renderDocumentPdf(doc);
      times.push(performance.now() - t);
      bytes = buf.length;
    }
    const cpuMs = process.cpuUsage(cpu).user / 1000 / RUNS;
    times.sort((a, b) => a - b);
    const note = `${RUNS} renders, ${Math.round(bytes / 1024)} KiB`;
    results.push({
      metric: `render ${lines} lines p50`,
      value: round(percentile(times, 50)),
      unit: 'ms',
      note,
    });
    results.push({
      metric: `render ${lines} lines p99`,
      value: round(percentile(times, 99)),
      unit: 'ms',
      note,
    });
    // Wall time suffers on a shared machine; CPU time per render is the steadier number.
    results.push({ metric: `render ${lines} lines cpu mean`, value: round(cpuMs), unit: 'ms', note });
  }

  if (process.env.PDF_SERVED !== 'off') results.push(...(await served()));

  const report: BenchReport = {
    name: 'pdf',
    date: new Date().toISOString(),
    environment: environment(),
    results,
  };
  console.log(markdown(report));
  await writeReport(report);
}

await main();
