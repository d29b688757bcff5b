// Lists and records by id answered again from kept pages (src/plugins/page-cache.ts): an
// unchanged answer is sent as it was, and any write — by this process, in a transaction, or by
// another connection to the same database (another server process, the worker, the CLI) — is
// seen by the next request.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
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
    // PostgreSQL's data version is the server's snapshot: any commit on the server — another
    // test file's, in another database — makes the next request read its page again. A hit is
    // only owed when nothing was committed between the two requests, which the snapshot read
    // around them tells; on SQLite the database is this file's alone.
    const snapshot = async () =>
      kind === 'postgres'
        ? (await sql<{ s: string }>`select pg_current_snapshot()::text as s`.execute(other.db)).rows[0]!.s
        : '';
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
        scopes: ['client:read', 'client:write', 'task-management:read'],
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
