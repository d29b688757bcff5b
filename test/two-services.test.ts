import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../src/app.js';
import type { DbHandle } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { createIntegration } from '../src/modules/integration/integration.service.js';
import { Api, createAccount, createTestDb, PG_URL, testConfig, urlOf } from './helpers.js';
import { ALL_INVOICE_SCOPES, bookNow, line, makeClient, makeInvoice } from './invoicing.fixtures.js';
import { Receiver, sleep, waitFor } from './webhooks.support.js';

/**
 * Two independent services on one PostgreSQL database (issue 44 point 7), as two machines
 * behind a load balancer run them: two `npm start` on two ports, each with its background
 * workers. Under writes sent to both, every answer of either is exact at once — a client
 * written through one is in the other's next list and record, kept pages included — every
 * webhook delivery is made once, the retention job runs once for the period, and the daily
 * dunning run (DUNNING_AUTO_RUN) writes one letter for an overdue invoice.
 */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

describe('two services on one PostgreSQL database', { skip: !PG_URL && 'needs TEST_DATABASE_URL' }, () => {
  let handle: DbHandle;
  let receiver: Receiver;
  const children: ChildProcess[] = [];
  const logs: string[] = [];

  before(async () => {
    handle = await createTestDb('postgres');
    await migrateToLatest(handle.db);
    receiver = await new Receiver().start();
  });
  after(async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    await Promise.all(
      children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : null)),
    );
    await receiver.stop();
    await handle.destroy();
  });

  it('answers exactly from either service under writes to both; each delivery, the retention and the dunning run once', async () => {
    const account = await createAccount(handle.db);
    // An invoice overdue since March, booked before the services start.
    const setup = await buildApp(testConfig(), { db: handle, logger: false });
    let overdueId: number;
    try {
      await setup.ready();
      const invoicing = await createIntegration(handle.db, {
        name: 'setup',
        scopes: ALL_INVOICE_SCOPES,
        userId: account.users.admin,
      });
      const api = new Api(setup, invoicing.access_token);
      const inv = await makeInvoice(api, {
        client_id: await makeClient(api),
        date: '2026-03-02',
        due_date: '2026-03-16',
        line_items: [line(1000)],
      });
      overdueId = (await bookNow(api, inv.id)).id;
    } finally {
      await setup.close();
    }
    const { access_token: token } = await createIntegration(handle.db, {
      name: 'two services',
      scopes: ['client:read', 'client:write', 'integration'],
      userId: account.users.admin,
    });
    const ports = [await freePort(), await freePort()];
    const env = {
      ...process.env,
      DATABASE_URL: urlOf(handle),
      HOST: '127.0.0.1',
      SEED_DEMO: 'false',
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_MINUTE: '0',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      SECRET_KEY: 'two-services-test-secret-key-0123456789',
      DUNNING_AUTO_RUN: 'true',
    };
    for (const port of ports) {
      const child = spawn('npm', ['start', '--silent'], {
        env: { ...env, PORT: String(port) },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      child.stdout!.on('data', (d: Buffer) => logs.push(...d.toString().split('\n')));
      children.push(child);
    }
    const call = async (i: number, method: string, path: string, body?: unknown) => {
      const res = await fetch(`http://127.0.0.1:${ports[i % 2]}/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    };
    await waitFor(
      'both services ready',
      async () => {
        const ready = await Promise.all(
          ports.map((p) =>
            fetch(`http://127.0.0.1:${p}/ready`)
              .then((r) => r.ok)
              .catch(() => false),
          ),
        );
        return ready.every(Boolean);
      },
      60_000,
    );
    const hook = await call(0, 'POST', '/webhooks', {
      url: `${receiver.url}/hook`,
      scopes: ['client:create'],
    });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));

    // Each service keeps the list while nothing is written to clients.
    for (const i of [0, 1, 0, 1]) assert.equal((await call(i, 'GET', '/clients?per_page=100')).status, 200);

    const N = 40;
    const names: string[] = [];
    for (let round = 0; round < N; round += 8) {
      await Promise.all(
        Array.from({ length: 8 }, async (_, k) => {
          const i = round + k;
          const name = `Client ${i}`;
          const created = await call(i, 'POST', '/clients', { name });
          assert.equal(created.status, 201, JSON.stringify(created.body));
          names.push(name);
          const id = created.body.data.id as number;
          // The other service answers the write at once: by id, and in its (kept) list.
          const other = await call(i + 1, 'GET', `/clients/${id}`);
          assert.equal(other.body.data.name, name);
          const list = await call(i + 1, 'GET', '/clients?per_page=100');
          assert.ok(
            list.body.data.some((c: { id: number }) => c.id === id),
            `service ${(i + 1) % 2} lists client ${id}`,
          );
          const renamed = await call(i + 1, 'PATCH', `/clients/${id}`, { name: `${name} renamed` });
          assert.equal(renamed.status, 200);
          assert.equal((await call(i, 'GET', `/clients/${id}`)).body.data.name, `${name} renamed`);
        }),
      );
    }
    // Both lists, read again and again, are the same and hold every client.
    const [a, b] = [
      await call(0, 'GET', '/clients?per_page=100'),
      await call(1, 'GET', '/clients?per_page=100'),
    ];
    assert.deepEqual(a.body, b.body);
    assert.equal(a.body.data.length, N + 1, 'the clients written, and the overdue invoice’s');

    // Every client:created delivered once, by whichever service took it.
    const deliveries = () => receiver.on('/hook');
    await waitFor('every delivery', () => deliveries().length >= N, 60_000);
    await sleep(2000); // a second delivery of any would arrive now
    const ids = deliveries().map((r) => r.headers['webhook-id']);
    assert.equal(ids.length, N, 'no delivery twice');
    assert.equal(new Set(ids).size, N);

    // The retention job: due at the start, run once by one of the two.
    await waitFor('the retention run', () => logs.some((l) => l.includes('retention: pruned')), 30_000);
    await sleep(1000);
    assert.equal(logs.filter((l) => l.includes('retention: pruned')).length, 1, 'one retention run');
    const job = await handle.db
      .selectFrom('scheduled_jobs')
      .select('last_run_at')
      .where('name', '=', 'retention')
      .executeTakeFirst();
    assert.ok(job?.last_run_at, 'the run is recorded');

    // The day's dunning run: one letter, whichever service ran it.
    const letters = () =>
      handle.db
        .selectFrom('dunning_letters')
        .select(['id', 'number'])
        .where('invoice_id', '=', overdueId)
        .execute();
    await waitFor('the dunning run', async () => (await letters()).length > 0, 30_000);
    await sleep(2000);
    assert.equal((await letters()).length, 1, 'one letter');
  });
});
