// Keeping a local copy in sync with the change feed (GET /changes): read everything once,
// remember the cursor, then apply only what changed since, deletions and archivals included.
//   API_URL=http://localhost:3000 API_TOKEN=… npx tsx examples/sync.ts
import { ApiError, createApiClient, ok } from '@pm-invoicing/sdk';

const api = createApiClient({ baseUrl: process.env.API_URL!, token: process.env.API_TOKEN! });

/** The local copy: `kind:id` → the resource as the API returns it. Use a database in real life. */
const copy = new Map<string, Record<string, unknown>>();
let cursor: string | undefined;

async function sync(): Promise<number> {
  let applied = 0;
  try {
    for await (const change of api.changes({ after: cursor, limit: 500 })) {
      const key = `${change.resource}:${change.id}`;
      if (change.action === 'deleted') copy.delete(key);
      else if (change.data) copy.set(key, change.data);
      cursor = change.cursor; // store it with the data, in the same transaction
      applied++;
    }
  } catch (err) {
    // The cursor is older than the feed's window (docs/changes.md): reread, then follow on.
    if (!(err instanceof ApiError) || err.code !== 'cursor_expired') throw err;
    const latest = String(err.problem.latest_cursor);
    await resync();
    cursor = latest;
    return applied + (await sync());
  }
  return applied;
}

/** A fresh copy from the lists; the feed then goes on from the cursor taken before reading them. */
async function resync(): Promise<void> {
  copy.clear();
  for await (const c of api.paginate('/clients', {})) copy.set(`client:${c.id}`, c);
  for await (const t of api.paginate('/tasks', {})) copy.set(`task:${t.id}`, t);
}

console.log(`first sync: ${await sync()} changes, ${copy.size} records`);

const client = await ok(api.POST('/clients', { body: { name: 'Sync Test KG' } }));
await api.PATCH('/clients/{id}', { params: { path: { id: client.data.id } }, body: { city: 'Hamburg' } });
await api.DELETE('/clients/{id}', { params: { path: { id: client.data.id } } }); // archives it

const projects = await ok(api.GET('/projects', { params: { query: { per_page: 1 } } }));
const task = await ok(
  api.POST('/tasks', { body: { project_id: projects.data[0]!.id, name: 'Short-lived' } }),
);
await api.DELETE('/tasks/{task}', { params: { path: { task: task.data.id } } });

console.log(`second sync: ${await sync()} changes`);
const local = copy.get(`client:${client.data.id}`);
if (local?.city !== 'Hamburg' || !local.archived_at)
  throw new Error(`the copy missed a change: ${JSON.stringify(local)}`);
console.log(`client ${client.data.id} in the copy: city ${local.city}, archived ${local.archived_at}`);
console.log(
  `task ${task.data.id} in the copy: ${JSON.stringify(copy.get(`task:${task.data.id}`)?.archived_at ?? 'gone')}`,
);
console.log(`third sync (nothing new): ${await sync()} changes`);
