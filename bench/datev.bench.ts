// The hand-over to the tax adviser (issue 41): POST /exports/datev of a month with 20,000 booked
// documents (invoices at 19 % and 7 %, every tenth a credit, over 500 clients) and 5,000
// payments received, on a fresh temporary SQLite file; the target is under 5 s. The first run
// also numbers the 500 debtors; the median is of the later ones.
// `npx tsx bench/datev.bench.ts` (BENCH_DATEV_DOCUMENTS=2000 for a quick run).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/index.js';
import { importData } from '../src/import/index.js';
import { benchToken, caller, environment, type Metric, machineLoad, markdown, writeReport } from './lib.js';

const DOCUMENTS = Number(process.env.BENCH_DATEV_DOCUMENTS ?? 20_000);
const CLIENTS = 500;
const PAYMENTS = Math.round(DOCUMENTS / 4);
const RUNS = 3;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const money = (cents: number) => (cents / 100).toFixed(2);

const dir = mkdtempSync(join(tmpdir(), 'bench-datev-'));
const handle = createDb({ kind: 'sqlite', file: join(dir, 'bench.sqlite') });
const app = await buildApp(
  loadConfig({ LOG_LEVEL: 'silent', RUN_WORKER: 'false', RATE_LIMIT_PER_MINUTE: '0' }),
  { db: handle, logger: false },
);
const db = handle.db;
try {
  const { account_id } = await importData(db, {
    account: { name: 'Bench', country_code: 'DE', settings: { vat_id: 'DE999999999' } },
    users: [{ email: 'a@bench.example', first_name: 'A', last_name: 'Bench', role: 'admin' }],
    clients: Array.from({ length: CLIENTS }, (_, i) => ({
      name: `Kunde ${i} Müller & Söhne`,
      country_code: 'DE',
      street: `Straße ${i}`,
      zip: '10115',
      city: 'Berlin',
    })),
  });
  const clients = (
    await db.selectFrom('clients').select(['id', 'name']).where('account_id', '=', account_id).execute()
  ).map((c) => ({ id: c.id, buyer: JSON.stringify({ name: c.name, vat_id: null }) }));
  const api = caller(
    app,
    await benchToken(db, ['accounting:export', 'account:write', 'account:read'], account_id),
  );
  const call = async (method: 'POST' | 'PATCH', url: string, payload: object) =>
    JSON.parse((await api(method, url, payload)).body).data;
  await call('PATCH', '/account/profile', {
    accounting: { datev_consultant_number: 1001, datev_client_number: 42 },
  });

  // Booked documents as booking leaves them: the frozen document's taxes and the buyer.
  const ids: number[] = [];
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < DOCUMENTS; i += 1000) {
      const rows = await trx
        .insertInto('outgoing_invoices')
        .values(
          Array.from({ length: Math.min(1000, DOCUMENTS - i) }, (_, k) => {
            const j = i + k;
            const credit = j % 10 === 9;
            const sign = credit ? -1 : 1;
            const net19 = sign * (10_000 + (j % 977) * 13);
            const net7 = j % 3 === 0 ? sign * (2_000 + (j % 101)) : 0;
            const taxes = [{ rate: '19', net: money(net19), tax: money(Math.round(net19 * 0.19)) }];
            if (net7) taxes.push({ rate: '7', net: money(net7), tax: money(Math.round(net7 * 0.07)) });
            const client = clients[j % CLIENTS]!;
            const date = `2026-11-${String(1 + (j % 30)).padStart(2, '0')}`;
            return {
              account_id,
              type: credit ? 'credit' : 'invoice',
              status: 'booked',
              invoice_number: `RE-2026-${j + 1}`,
              client_id: client.id,
              date,
              due_date: date,
              currency: 'EUR',
              document: JSON.stringify({ taxes, deductions: [] }),
              buyer: client.buyer,
              booked_at: `${date}T12:00:00.000Z`,
            };
          }) as never,
        )
        .returning('id')
        .execute();
      ids.push(...rows.map((r) => r.id));
    }
    for (let i = 0; i < PAYMENTS; i += 1000)
      await trx
        .insertInto('payments')
        .values(
          Array.from({ length: Math.min(1000, PAYMENTS - i) }, (_, k) => ({
            account_id,
            type: 'outgoing_invoice',
            invoice_id: ids[(i + k) * 4]!,
            payment_account_id: null,
            amount: 5_000,
            currency: 'EUR',
            date: `2026-11-${String(1 + ((i + k) % 30)).padStart(2, '0')}`,
            credit_id: null,
            description: null,
          })) as never,
        )
        .execute();
  });

  const body = { date_from: '2026-11-01', date_to: '2026-11-30' };
  const times: number[] = [];
  let first = 0;
  let exported = { bookings: 0, debtors: 0, byte_size: 0 };
  for (let r = 0; r <= RUNS; r++) {
    const t = performance.now();
    exported = await call('POST', '/exports/datev', body);
    const ms = performance.now() - t;
    if (r === 0) first = ms;
    else times.push(ms);
  }
  const results: Metric[] = [
    {
      metric: `sqlite: POST /exports/datev, a month of ${DOCUMENTS.toLocaleString('en')} booked documents`,
      value: Math.round(median(times)),
      unit: 'ms',
      note: `median of ${RUNS}; ${exported.bookings} rows (each document by rate, ${PAYMENTS} payments), ${exported.debtors} debtors, ZIP ${Math.round(exported.byte_size / 1024)} KiB; first run (numbering the debtors) ${Math.round(first)} ms; target < 5000; load ${machineLoad()}`,
    },
  ];
  const out = { name: 'datev', date: new Date().toISOString(), environment: environment(), results };
  console.log(markdown(out));
  await writeReport(out);
} finally {
  await app.close();
  await handle.destroy();
  rmSync(dir, { recursive: true, force: true });
}
