// A month of tracked time billed: a project with an hourly rate, a senior at a higher rate on
// its team, efforts over November (billable and not), an open invoice from the billable ones
// (one line per task and rate, rounded to quarter hours), its timesheet, and the project's
// profitability report.
//   API_URL=http://localhost:3000 API_TOKEN=… npx tsx examples/bill-month.ts
import { ApiError, createApiClient, ok } from '@pm-invoicing/sdk';

const api = createApiClient({ baseUrl: process.env.API_URL!, token: process.env.API_TOKEN! });

const client = await ok(
  api.POST('/clients', {
    body: { name: 'Agentur Kunde GmbH', street: 'Ring 5', zip: '50667', city: 'Köln', country_code: 'DE' },
  }),
);
const project = await ok(
  api.POST('/projects', {
    body: { client_id: client.data.id, name: 'Website relaunch', hourly_rate: 95, budget_minutes: 6000 },
  }),
);
console.log(`project ${project.data.id}: ${project.data.name} at 95.00 an hour`);

const me = await ok(api.GET('/whoami'));
// On this project the token's user is billed at 120.00 an hour (the team rate wins over the project's).
await ok(
  api.PUT('/projects/{id}/team/{user_id}', {
    params: { path: { id: project.data.id, user_id: me.data.id } },
    body: { role: 'lead', hourly_rate: 120 },
  }),
);
const design = await ok(api.POST('/tasks', { body: { project_id: project.data.id, name: 'Design' } }));
const build = await ok(api.POST('/tasks', { body: { project_id: project.data.id, name: 'Build' } }));

const days = ['2026-11-02', '2026-11-09', '2026-11-16', '2026-11-23', '2026-11-30'];
for (const [i, date] of days.entries()) {
  await ok(api.POST('/efforts', { body: { date, duration_minutes: 170 + i * 7, task_id: design.data.id } }));
  await ok(api.POST('/efforts', { body: { date, duration_minutes: 250, task_id: build.data.id } }));
}
// Internal time: tracked, never billed.
await ok(
  api.POST('/efforts', {
    body: { date: '2026-11-20', duration_minutes: 60, project_id: project.data.id, billable: false },
  }),
);

const invoice = await ok(
  api.POST('/outgoing-invoices/from-efforts', {
    body: {
      project_id: project.data.id,
      date_from: '2026-11-01',
      date_to: '2026-11-30',
      group_by: 'task',
      rounding_minutes: 15,
    },
  }),
);
for (const line of invoice.data.line_items ?? [])
  console.log(`  ${line.title}: ${line.quantity} ${line.unit} × ${line.unit_price} = ${line.net_total}`);
console.log(`invoice ${invoice.data.id} (open): net ${invoice.data.net_total}, gross ${invoice.data.gross_total}`);

const sheet = await ok(
  api.GET('/outgoing-invoices/{id}/efforts', { params: { path: { id: invoice.data.id } } }),
);
console.log(`timesheet: ${sheet.data.length} efforts, each with its rate and where it came from`);
if (sheet.data.length !== 10) throw new Error(`expected the 10 billable efforts, got ${sheet.data.length}`);

// Billing the same month again finds nothing left: an effort stands on one invoice only.
const again = await api
  .POST('/outgoing-invoices/from-efforts', {
    body: { project_id: project.data.id, date_from: '2026-11-01', date_to: '2026-11-30' },
  })
  .then(
    () => null,
    (err: unknown) => err,
  );
if (!(again instanceof ApiError) || again.code !== 'nothing_to_bill') throw new Error('the month was billed twice');
console.log(`billing November again: ${again.status} ${again.code}`);

const report = await ok(api.GET('/projects/{id}/report', { params: { path: { id: project.data.id } } }));
const t = report.data.totals;
console.log(`report: billable value ${t.billable_value}, invoiced (open) ${t.invoiced_net.open}, uninvoiced ${t.uninvoiced_value}`);
