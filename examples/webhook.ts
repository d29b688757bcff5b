// Receiving webhooks: a local receiver, a subscription to task:create, a task created, the
// delivery verified with the signing secret (Standard Webhooks). A local receiver needs the
// service to run with WEBHOOK_ALLOW_PRIVATE=true (a public URL does not).
//   API_URL=http://localhost:3000 API_TOKEN=… npx tsx examples/webhook.ts
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApiClient, ok, verifyWebhook, type WebhookEvent } from '@pm-invoicing/sdk';

const api = createApiClient({ baseUrl: process.env.API_URL!, token: process.env.API_TOKEN! });

let secret = '';
let received: (event: WebhookEvent) => void;
const delivery = new Promise<WebhookEvent>((resolve) => {
  received = resolve;
});
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    try {
      // The raw body, exactly as it came: the signature is over these bytes.
      const event = verifyWebhook(secret, req.headers, Buffer.concat(chunks));
      res.writeHead(204).end();
      received(event);
    } catch (err) {
      console.error('refused a delivery:', (err as Error).message);
      res.writeHead(400).end();
    }
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const { port } = receiver.address() as AddressInfo;

const webhook = await ok(
  api.POST('/webhooks', { body: { url: `http://127.0.0.1:${port}/hooks`, scopes: ['task:create'] } }),
);
secret = webhook.data.signature_secret_key; // shown this once: keep it safe
console.log(`webhook ${webhook.data.id} → http://127.0.0.1:${port}/hooks`);

const projects = await ok(api.GET('/projects', { params: { query: { per_page: 1 } } }));
const task = await ok(
  api.POST('/tasks', { body: { project_id: projects.data[0]!.id, name: 'Call the customer' } }),
);

const timeout = setTimeout(() => {
  console.error('no delivery within 30 s');
  process.exit(1);
}, 30_000);
const event = await delivery;
clearTimeout(timeout);
console.log(`verified ${event.event} ${event.id} for task ${(event.data as { id: number }).id}`);
if ((event.data as { id: number }).id !== task.data.id) throw new Error('the event is about another task');

await api.DELETE('/webhooks/{id}', { params: { path: { id: webhook.data.id } } });
receiver.close();
