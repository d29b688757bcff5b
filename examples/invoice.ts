// From zero to a booked invoice: a client, a task in a project, an invoice with two lines,
// booked (the service assigns the number), its PDF downloaded.
//   API_URL=http://localhost:3000 API_TOKEN=… npx tsx examples/invoice.ts
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiClient, ok } from '@pm-invoicing/sdk';

const api = createApiClient({ baseUrl: process.env.API_URL!, token: process.env.API_TOKEN! });

const client = await ok(
  api.POST('/clients', {
    body: {
      name: 'Beispiel GmbH',
      street: 'Hauptstraße 1',
      zip: '10115',
      city: 'Berlin',
      country_code: 'DE',
    },
  }),
);
console.log(`client ${client.data.id}: ${client.data.name}`);

// Projects are managed in the product itself; the API reads them. Take the first one.
const projects = await ok(api.GET('/projects', { params: { query: { per_page: 1 } } }));
const project = projects.data[0];
if (!project) throw new Error('the account has no project yet');
const task = await ok(api.POST('/tasks', { body: { project_id: project.id, name: 'Prepare the invoice' } }));
console.log(`task ${task.data.id} in project ${project.name}`);

const invoice = await ok(
  api.POST('/outgoing-invoices', {
    body: {
      client_id: client.data.id,
      title: 'Consulting, May',
      line_items: [
        { title: 'Workshop', quantity: 1, unit: 'day', unit_price: 1200, tax_rate: 19 },
        { title: 'Travel', quantity: 1, unit_price: 84.5, tax_rate: 19 },
      ],
    },
  }),
);
console.log(`invoice ${invoice.data.id}: net ${invoice.data.net_total}, gross ${invoice.data.gross_total}`);

const booked = await ok(
  api.POST('/outgoing-invoices/{id}/book', { params: { path: { id: invoice.data.id } }, body: {} }),
);
console.log(`booked as ${booked.data.invoice_number}`);

const pdf = await api.GET('/outgoing-invoices/{id}/pdf', {
  params: { path: { id: invoice.data.id } },
  parseAs: 'arrayBuffer',
});
const file = join(tmpdir(), `invoice-${booked.data.invoice_number?.replace(/\W+/g, '-')}.pdf`);
await writeFile(file, Buffer.from(pdf.data!));
if (!Buffer.from(pdf.data!).subarray(0, 5).equals(Buffer.from('%PDF-'))) throw new Error('not a PDF');
console.log(`PDF (${pdf.data!.byteLength} bytes) saved to ${file}`);
