// Billing the work (issue 37): POST /outgoing-invoices/from-efforts over 10,000 efforts and
// GET /projects/{id}/report of a project with 100,000 efforts, on a fresh temporary SQLite
// file; the target is under 1 s each. `npx tsx bench/billing.bench.ts`
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/index.js';
import { importData } from '../src/import/index.js';
import { benchToken, caller, environment, type Metric, machineLoad, markdown, writeReport } from './lib.js';

const BILLED = 10_000;
const REPORTED = 100_000;
const RUNS = 5;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const dir = mkdtempSync(join(tmpdir(), 'bench-billing-'));
const handle = createDb({ kind: 'sqlite', file: join(dir, 'bench.sqlite') });
const app = await buildApp(
  loadConfig({ LOG_LEVEL: 'silent', RUN_WORKER: 'false', RATE_LIMIT_PER_MINUTE: '0' }),
  {
    db: handle,
    logger: false,
  },
);
const db = handle.db;
try {
  const { account_id } = await importData(db, {
    account: {
      name: 'Bench',
      country_code: 'DE',
      settings: { vat_id: 'DE999999999', default_hourly_rate: 9000 },
    },
    users: Array.from({ length: 5 }, (_, i) => ({
      email: `u${i}@bench.example`,
      first_name: `User${i}`,
      last_name: 'Bench',
      role: i === 0 ? 'admin' : 'member',
    })),
    clients: [{ name: 'Bench client', country_code: 'DE', street: 'Weg 1', zip: '10115', city: 'Berlin' }],
  });
  const users = (
    await db.selectFrom('users').select('id').where('account_id', '=', account_id).execute()
  ).map((u) => u.id);
  const client = await db
    .selectFrom('clients')
    .select('id')
    .where('account_id', '=', account_id)
    .executeTakeFirstOrThrow();
  const scopes = ['outgoing-invoice:read', 'outgoing-invoice:write', 'efforts:read', 'efforts:extended:read'];
  const call = caller(app, await benchToken(db, scopes, account_id));

  /** A project with `n` efforts over 20 tasks (every fifth with a rate) and the users, some not billable. */
  async function project(name: string, n: number): Promise<number> {
    const p = await db
      .insertInto('projects')
      .values({ account_id, client_id: client.id, name, hourly_rate: 10000 } as never)
      .returning('id')
      .executeTakeFirstOrThrow();
    const tasks: number[] = [];
    for (let t = 0; t < 20; t++) {
      const row = await db
        .insertInto('tasks')
        .values({
          account_id,
          project_id: p.id,
          name: `Task ${t}`,
          hourly_rate: t % 5 === 0 ? 12000 : null,
        } as never)
        .returning('id')
        .executeTakeFirstOrThrow();
      tasks.push(row.id);
    }
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < n; i += 1000) {
        await trx
          .insertInto('efforts')
          .values(
            Array.from({ length: Math.min(1000, n - i) }, (_, k) => {
              const j = i + k;
              return {
                account_id,
                user_id: users[j % users.length]!,
                project_id: p.id,
                task_id: tasks[j % tasks.length]!,
                date: `2026-${String(1 + (j % 12)).padStart(2, '0')}-${String(1 + (j % 28)).padStart(2, '0')}`,
                duration_minutes: 5 + (j % 235),
                billable: j % 10 === 0 ? 0 : 1,
                type: j % 50 === 0 ? 'admin' : 'work',
                hourly_rate: j % 97 === 0 ? 13333 : null,
              };
            }) as never,
          )
          .execute();
      }
    });
    return p.id;
  }

  const billed = await project('Billed', BILLED);
  const reported = await project('Reported', REPORTED);
  for (const u of users)
    await db
      .insertInto('user_rates')
      .values({ user_id: u, account_id, hourly_rate: null, cost_rate: 5000 } as never)
      .execute();

  const body = {
    project_id: billed,
    date_from: '2026-01-01',
    date_to: '2026-12-31',
    group_by: 'task',
    rounding_minutes: 15,
  };
  const fromEfforts: number[] = [];
  let lines = 0;
  for (let r = 0; r < RUNS; r++) {
    const t = performance.now();
    const res = await call('POST', '/outgoing-invoices/from-efforts', body);
    fromEfforts.push(performance.now() - t);
    const inv = JSON.parse(res.body).data;
    lines = inv.line_items.length;
    // Deleting the draft frees its efforts for the next run.
    await call('DELETE', `/outgoing-invoices/${inv.id}`);
  }
  const report: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const t = performance.now();
    await call('GET', `/projects/${reported}/report`);
    report.push(performance.now() - t);
  }
  const results: Metric[] = [
    {
      metric: 'sqlite: POST /outgoing-invoices/from-efforts, 10,000 efforts',
      value: Math.round(median(fromEfforts)),
      unit: 'ms',
      note: `median of ${RUNS}; group_by task → ${lines} lines; 9,000 billable links written; target < 1000`,
    },
    {
      metric: 'sqlite: GET /projects/{id}/report, 100,000 efforts',
      value: Math.round(median(report)),
      unit: 'ms',
      note: `median of ${RUNS}; by user, task and month; target < 1000; load ${machineLoad()}`,
    },
  ];
  const out = { name: 'billing', date: new Date().toISOString(), environment: environment(), results };
  console.log(markdown(out));
  await writeReport(out);
} finally {
  await app.close();
  await handle.destroy();
  rmSync(dir, { recursive: true, force: true });
}
