// Writes src/plugins/openapi-examples.json: examples of the main schemas of the OpenAPI
// document, taken from real answers of the service over the demo data (so they are exactly
// what a client receives). Run again when a schema changes: `npm run openapi:examples`
// (test/openapi-complete.test.ts checks each example against its schema).
import { writeFile } from 'node:fs/promises';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/index.js';
import { seedDemoIfEmpty } from '../src/import/demo.js';
import { createIntegration } from '../src/modules/integration/integration.service.js';
import { ALL_SCOPES } from '../src/shared/scopes.js';

const out = new URL('../src/plugins/openapi-examples.json', import.meta.url);
const handle = createDb({ kind: 'sqlite', file: ':memory:' });
const app = await buildApp(
  loadConfig({
    DATABASE_URL: ':memory:',
    LOG_LEVEL: 'silent',
    RUN_WORKER: 'false',
    WEBHOOK_ALLOW_PRIVATE: 'true',
  }),
  { db: handle, logger: false },
);
await app.ready();
await seedDemoIfEmpty(handle.db, () => {});
const { access_token } = await createIntegration(handle.db, { name: 'examples', scopes: [...ALL_SCOPES] });

async function call(method: 'GET' | 'POST', url: string, payload?: object) {
  const res = await app.inject({
    method,
    url: `/api/v1${url}`,
    headers: { authorization: `Bearer ${access_token}` },
    ...(payload ? { payload } : {}),
  });
  if (res.statusCode >= 400) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json();
}
const first = async (url: string) => (await call('GET', url)).data[0];

const client = await call('POST', '/clients', {
  name: 'Muster GmbH',
  email: 'billing@muster.example',
  street: 'Hauptstraße 5',
  zip: '10115',
  city: 'Berlin',
  country_code: 'DE',
  vat_id: 'DE811111111',
});
const company = await first('/companies');
const contact = await first('/contacts');
const project = await first('/projects');
const task = await first('/tasks');
const invoice = await call('POST', '/outgoing-invoices', {
  client_id: client.data.id,
  title: 'Website relaunch, May',
  date: '2026-05-31',
  line_items: [
    { title: 'Design', quantity: 12, unit: 'h', unit_price: 95, tax_rate: 19 },
    { title: 'Hosting', quantity: 1, unit: 'month', unit_price: 29.9, tax_rate: 19 },
  ],
});
const webhook = await call('POST', '/webhooks', {
  url: 'https://receiver.example/hooks',
  scopes: ['task:create', 'contact:update'],
});
const problem = await app.inject({
  method: 'GET',
  url: '/api/v1/clients/999999',
  headers: { authorization: `Bearer ${access_token}` },
});

const examples = {
  ClientFullData: client.data,
  Company: company,
  Contact: contact,
  Project: project,
  Task: task,
  OutgoingInvoice: invoice.data,
  LineItem: invoice.data.line_items[0],
  WebhookWithSecret: webhook.data,
  Problem: { ...problem.json(), instance: undefined },
};
await writeFile(out, `${JSON.stringify(examples, null, 2)}\n`);
await app.close();
await handle.destroy();
console.log(`wrote ${out.pathname}`);
