// Lists and records by id answered again from kept pages (src/plugins/page-cache.ts): an
// unchanged answer is sent as it was, and any write to a table the answer reads — by this
// process, in a transaction, or by another connection to the same database (another server
// process, the worker, the CLI) — is seen by the next request; a write to another table
// leaves the page kept.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { versionColumn } from '../src/db/data-version.js';
import { createDb, type DbHandle, type DbKind } from '../src/db/index.js';
import { transact } from '../src/db/transact.js';
import { createIntegration, revokeIntegration } from '../src/modules/integration/integration.service.js';
import { pageCacheStats } from '../src/plugins/page-cache.js';
import {
  Api,
  connectAgain,
  createAccount,
  createTestDb,
  DB_KINDS,
  type TestAccount,
  testConfig,
} from './helpers.js';

for (const kind of DB_KINDS) pageCacheSuite(kind);

function pageCacheSuite(kind: DbKind) {
  describe(`page cache [${kind}]`, () => {
    let dir: string;
    let handle: DbHandle;
    let other: DbHandle;
    let app: FastifyInstance;
    let account: TestAccount;
    let api: Api;
    let integrationId: number;
    const stats = () => pageCacheStats(app)!;
    // The table versions (db/data-version.ts): the background work of the app (none here,
    // workers are off) could write between two requests; a hit is owed only when nothing was
    // committed around them.
    const snapshot = async () =>
      (await sql<{ s: string }>`select ${versionColumn(other.db)} as s`.execute(other.db)).rows[0]!.s;
    /** Runs `fresh` (reads the page) then `again` until they ran with nothing committed around them. */
    async function whileQuiet<T>(fresh: () => Promise<unknown>, again: () => Promise<T>): Promise<T> {
      for (let attempt = 0; attempt < 200; attempt++) {
        const before = await snapshot();
        await fresh();
        const hits = stats().hits;
        const res = await again();
        if ((await snapshot()) !== before) continue;
        assert.equal(stats().hits, hits + 1, 'sent from the kept page');
        return res;
      }
      assert.fail('the database server was never quiet for two requests');
    }

    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'page-cache-'));
      handle = await createTestDb(kind, join(dir, 'db.sqlite'));
      app = await buildApp(testConfig({ pageCacheMb: 1 }), { db: handle, logger: false });
      await app.ready();
      // A second connection to the same database, as another process has.
      other = connectAgain(handle);
      account = await createAccount(handle.db);
      const created = await createIntegration(handle.db, {
        name: 'cache',
        scopes: [
          'client:read',
          'client:write',
          'task-management:read',
          'task-management:write',
          'project:write',
        ],
        userId: account.users.admin,
      });
      integrationId = created.id;
      api = new Api(app, created.access_token);
      for (const name of ['Alpha', 'Beta', 'Gamma'])
        assert.equal((await api.post('/clients', { name })).status, 201);
    });
    after(async () => {
      await app.close();
      await other.destroy();
      await handle.destroy();
      await rm(dir, { recursive: true, force: true });
    });

    const names = (res: { body: { data: { name: string }[] } }) => res.body.data.map((c) => c.name);

    it('sends an unchanged list again as it was, body and Link header', async () => {
      const first = await api.get('/clients?per_page=2');
      const second = await whileQuiet(
        () => api.get('/clients?per_page=2'),
        () => api.get('/clients?per_page=2'),
      );
      assert.equal(second.status, 200);
      assert.equal(second.text, first.text);
      assert.equal(second.headers.link, first.headers.link);
      assert.equal(second.headers['content-type'], first.headers['content-type']);
      assert.deepEqual(names(second), ['Alpha', 'Beta']);
      assert.equal(second.body.meta.total, 3);
    });

    it('a write through the API is in the next answer', async () => {
      await api.get('/clients');
      assert.equal((await api.post('/clients', { name: 'Delta' })).status, 201);
      const res = await api.get('/clients');
      assert.deepEqual(names(res), ['Alpha', 'Beta', 'Gamma', 'Delta']);
      assert.equal(res.body.meta.total, 4);
      const renamed = await api.patch(`/clients/${res.body.data[0].id}`, { name: 'Alpha 2' });
      assert.equal(renamed.status, 200);
      assert.equal(names(await api.get('/clients'))[0], 'Alpha 2');
    });

    it('a commit of another connection (another process) is in the next answer', async () => {
      await api.get('/clients');
      const hits = stats().hits;
      await other.db
        .updateTable('clients')
        .set({ name: 'Renamed elsewhere' })
        .where('account_id', '=', account.accountId)
        .where('name', '=', 'Beta')
        .execute();
      const res = await api.get('/clients');
      assert.equal(stats().hits, hits, 'not from the kept page');
      assert.ok(names(res).includes('Renamed elsewhere'), names(res).join());
      // And unchanged again: kept again.
      const again = await whileQuiet(
        () => api.get('/clients'),
        () => api.get('/clients'),
      );
      assert.equal(again.text, res.text);
    });

    it('a record read by id is sent again while unchanged; a change, here or elsewhere, is in the next answer', async () => {
      const id = (await api.get('/clients')).body.data[0].id as number;
      const first = await api.get(`/clients/${id}`);
      assert.equal(first.status, 200);
      const again = await whileQuiet(
        () => api.get(`/clients/${id}`),
        () => api.get(`/clients/${id}`),
      );
      assert.equal(again.text, first.text);
      assert.equal((await api.patch(`/clients/${id}`, { name: 'By id' })).status, 200);
      assert.equal((await api.get(`/clients/${id}`)).body.data.name, 'By id');
      await other.db.updateTable('clients').set({ name: 'By id elsewhere' }).where('id', '=', id).execute();
      const hits = stats().hits;
      assert.equal((await api.get(`/clients/${id}`)).body.data.name, 'By id elsewhere');
      assert.equal(stats().hits, hits, 'not from the kept page');
      // Refusals are not kept: another tenant's id stays a 404.
      const stored = stats().stored;
      assert.equal((await api.get('/clients/999999999')).status, 404);
      assert.equal((await api.get('/clients/999999999')).status, 404);
      assert.equal(stats().stored, stored);
    });

    it('a request made during a transaction answers no uncommitted row; after its commit the next one has it', async () => {
      await api.get('/clients');
      let pending: Promise<{ status: number; text: string }> | undefined;
      await transact(handle.db, async (trx) => {
        await trx
          .updateTable('clients')
          .set({ name: 'Inside a transaction' })
          .where('account_id', '=', account.accountId)
          .where('name', '=', 'Gamma')
          .execute();
        pending = api.get('/clients');
        await new Promise((r) => setTimeout(r, 20));
      });
      const during = await pending!;
      // SQLite's one connection answers after the commit; a PostgreSQL pool answers at once, with
      // the committed rows.
      assert.equal(during.text.includes('Inside a transaction'), kind === 'sqlite', during.text);
      const res = await api.get('/clients');
      assert.ok(res.text.includes('Inside a transaction'), res.text);
    });

    it('a write to tasks leaves the clients list kept; a write to clients does not', async () => {
      const clientId = (await api.get('/clients')).body.data[0].id;
      const project = await api.post('/projects', { name: 'Cache project', client_id: clientId });
      assert.equal(project.status, 201, project.text);
      const first = await api.get('/clients');
      await whileQuiet(
        () => api.get('/clients'),
        () => api.get('/clients'),
      );
      // Tasks written by this process and by another connection: the clients list is kept.
      const task = await api.post('/tasks', { project_id: project.body.data.id, name: 'A task' });
      assert.equal(task.status, 201, task.text);
      await other.db
        .updateTable('tasks')
        .set({ name: 'Renamed elsewhere' })
        .where('id', '=', task.body.data.id)
        .execute();
      let hits = stats().hits;
      const kept = await api.get('/clients');
      assert.equal(stats().hits, hits + 1, 'the clients list, from the kept page');
      assert.equal(kept.text, first.text);
      // The tasks list is not: it reads tasks.
      assert.equal(
        (await api.get('/tasks')).body.data.find((t: { id: number }) => t.id === task.body.data.id)?.name,
        'Renamed elsewhere',
      );
      // A write to clients makes the list stale.
      const renamed = await other.db
        .updateTable('clients')
        .set({ name: 'Changed for the cache' })
        .where('id', '=', clientId)
        .executeTakeFirst();
      assert.equal(Number(renamed.numUpdatedRows), 1);
      hits = stats().hits;
      const fresh = await api.get('/clients');
      assert.equal(stats().hits, hits, 'read again');
      assert.ok(names(fresh).includes('Changed for the cache'), names(fresh).join());
    });

    const a1First = (res: { body: { data: { id: number }[] } }) => res.body.data[0]!.id;

    it('two apps on one database (two processes) stay exact, each keeping what the other did not touch', async () => {
      const second = connectAgain(handle);
      const app2 = await buildApp(testConfig({ pageCacheMb: 1 }), { db: second, logger: false });
      try {
        await app2.ready();
        const api2 = new Api(app2, api.token);
        const stats2 = () => pageCacheStats(app2)!;
        const before1 = await api.get('/clients?per_page=100');
        const before2 = await api2.get('/clients?per_page=100');
        assert.equal(before2.text, before1.text);
        // The second writes a client: both read it at once.
        assert.equal((await api2.post('/clients', { name: 'From the second' })).status, 201);
        for (const a of [api, api2])
          assert.ok(names(await a.get('/clients?per_page=100')).includes('From the second'));
        // The first writes a task: both send the clients list from their kept pages.
        const project = await api.post('/projects', { name: 'Second project', client_id: a1First(before1) });
        const hits = [stats().hits, stats2().hits];
        const snap = await snapshot();
        assert.equal(
          (await api.post('/tasks', { project_id: project.body.data.id, name: 'Another' })).status,
          201,
        );
        const a1 = await api.get('/clients?per_page=100');
        const a2 = await api2.get('/clients?per_page=100');
        assert.equal(a1.text, a2.text);
        const [v1, v2] = [stats().hits, stats2().hits];
        // Each was kept before the task was written, so each is a hit (unless another write of clients came between).
        if (
          (await snapshot()).split(',').find((p) => p.startsWith('clients=')) ===
          snap.split(',').find((p) => p.startsWith('clients='))
        ) {
          assert.equal(v1, hits[0]! + 1);
          assert.equal(v2, hits[1]! + 1);
        }
        // The second renames a client: the first's next answer has it.
        await api2.patch(
          `/clients/${a1.body.data.find((c: { name: string }) => c.name === 'From the second').id}`,
          { name: 'Renamed by the second' },
        );
        assert.ok(names(await api.get('/clients?per_page=100')).includes('Renamed by the second'));
      } finally {
        await app2.close();
        await second.destroy();
      }
    });

    it('each token, URL and query has its own page; refused requests are not kept', async () => {
      const mine = await api.get('/clients?per_page=1');
      const otherAccount = await createAccount(handle.db);
      const theirs = await createIntegration(handle.db, {
        name: 'other',
        scopes: ['client:read'],
        userId: otherAccount.users.admin,
      });
      const them = new Api(app, theirs.access_token);
      const res = await them.get('/clients?per_page=1');
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data, []);
      assert.notEqual(res.text, mine.text);
      assert.equal((await api.get('/clients?per_page=1&page=2')).body.meta.page, 2);
      assert.equal((await api.get('/clients?per_page=0')).status, 422);
      assert.equal((await api.get('/clients?per_page=0')).status, 422);
      // A revoked token is refused even though its page is kept.
      await api.get('/tasks');
      await revokeIntegration(handle.db, integrationId);
      assert.equal((await api.get('/tasks')).status, 401);
      assert.equal((await api.get('/clients?per_page=1')).status, 401);
    });

    it('keeps at most PAGE_CACHE_MB, the least recently used pages going first', async () => {
      const created = await createIntegration(handle.db, {
        name: 'many',
        scopes: ['client:read'],
        userId: account.users.admin,
      });
      const many = new Api(app, created.access_token);
      // 300 clients with long names, then 150 distinct pages of 50 to 100 of them (10 to 25 kB
      // each, over 2 MB in all).
      await handle.db
        .insertInto('clients')
        .values(
          Array.from({ length: 300 }, (_, i) => ({
            account_id: account.accountId,
            name: `${String(i).padStart(3, '0')} ${'long name '.repeat(18)}`,
          })),
        )
        .execute();
      let sent = 0;
      for (let perPage = 50; perPage < 100; perPage++)
        for (let page = 1; page <= 3; page++) {
          const res = await many.get(`/clients?per_page=${perPage}&page=${page}`);
          assert.equal(res.status, 200);
          sent += res.text.length;
        }
      assert.ok(sent > 2 * 1024 * 1024, String(sent));
      assert.ok(stats().bytes <= 1024 * 1024, String(stats().bytes));
      assert.ok(stats().pages < 150, String(stats().pages));
      assert.ok(stats().pages > 30 && stats().bytes > 512 * 1024, JSON.stringify(stats()));
    });
  });
}

describe('page cache off', () => {
  it('PAGE_CACHE_MB=0 keeps nothing', async () => {
    const handle = createDb({ kind: 'sqlite', file: ':memory:' });
    const app = await buildApp(testConfig({ pageCacheMb: 0 }), { db: handle, logger: false });
    try {
      assert.equal(pageCacheStats(app), undefined);
      const account = await createAccount(handle.db);
      const created = await createIntegration(handle.db, {
        name: 'x',
        scopes: ['client:read'],
        userId: account.users.admin,
      });
      const api = new Api(app, created.access_token);
      assert.equal((await api.get('/clients')).status, 200);
      assert.equal((await api.get('/clients')).status, 200);
    } finally {
      await app.close();
      await handle.destroy();
    }
  });
});
