import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDb, type DbHandle } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { createIntegration } from '../src/modules/integration/integration.service.js';
import { Api, createAccount, DB_KINDS, PG_URL, pgUrlFor, testConfig } from './helpers.js';
import { TS_NODE_ARGS } from './spawn-ts.js';

/**
 * Several processes write while a reader pages through the change feed: the reader must see
 * every change exactly once. This file is also the writer: run with CHANGES_RACE_WRITER set
 * it writes through an app of its own (a server process of the same database) and exits.
 */
const WRITES = 12;

async function writer(): Promise<void> {
  const env = process.env;
  const app = await buildApp(
    loadConfig({
      ...env,
      RUN_WORKER: 'false',
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_MINUTE: '0',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    }),
    { logger: false },
  );
  const api = new Api(app, env.CHANGES_RACE_TOKEN);
  // Four at a time: on PostgreSQL their transactions overlap and commit in any order.
  const one = async (i: number) => {
    const created = await api.post('/clients', { name: `${env.CHANGES_RACE_WRITER} ${i}` });
    if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
    const id = created.body.data.id;
    if ((await api.patch(`/clients/${id}`, { notes: 'changed' })).status !== 200) throw new Error('update');
    if (i % 3 === 0 && (await api.delete(`/clients/${id}`)).status !== 204) throw new Error('archive');
    // Webhooks are counted by no list trigger: on PostgreSQL these transactions never queue
    // behind one another, so they commit in whatever order they finish.
    const hook = await api.post('/webhooks', {
      url: `https://hooks.example.com/${i}`,
      scopes: ['task:create'],
    });
    if (hook.status !== 201) throw new Error(`webhook: ${hook.status} ${hook.text}`);
    if (i % 2 === 0 && (await api.delete(`/webhooks/${hook.body.data.id}`)).status !== 204)
      throw new Error('delete');
  };
  for (let i = 0; i < WRITES; i += 4) await Promise.all([0, 1, 2, 3].map((k) => one(i + k)));
  await app.close();
}

function runWriter(url: string, token: string, tag: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...TS_NODE_ARGS, 'test/changes-race.test.ts'], {
      env: { ...process.env, CHANGES_RACE_WRITER: tag, CHANGES_RACE_TOKEN: token, DATABASE_URL: url },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`writer ${tag} exited ${code}: ${err}`)),
    );
  });
}

interface Entry {
  cursor: string;
  resource: string;
  id: number;
  action: string;
}

async function pgDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `t_race_${randomBytes(5).toString('hex')}`;
  const admin = async (q: string) => {
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    try {
      await c.query(q);
    } finally {
      await c.end();
    }
  };
  await admin(`create database ${name}`);
  return { url: pgUrlFor(name), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

if (process.env.CHANGES_RACE_WRITER) {
  await writer();
} else {
  for (const kind of DB_KINDS) {
    describe(`change feed under concurrent writers [${kind}]`, () => {
      let url: string;
      let cleanup: () => Promise<void>;
      let handle: DbHandle;
      let app: FastifyInstance;
      let token: string;
      let reader: Api;

      before(async () => {
        if (kind === 'sqlite') {
          const dir = await mkdtemp(join(tmpdir(), 'changes-race-'));
          url = join(dir, 'race.sqlite');
          cleanup = () => rm(dir, { recursive: true, force: true });
        } else {
          const db = await pgDatabase();
          url = db.url;
          cleanup = db.drop;
        }
        handle = createDb(loadConfig({ DATABASE_URL: url }).db);
        await migrateToLatest(handle.db);
        const account = await createAccount(handle.db);
        app = await buildApp(testConfig(), { db: handle, logger: false });
        const made = await createIntegration(handle.db, {
          name: 'race',
          scopes: ['client:read', 'client:write', 'integration'],
          userId: account.users.admin,
        });
        token = made.access_token;
        reader = new Api(app, token);
      });
      after(async () => {
        await app?.close();
        await handle?.destroy();
        await cleanup?.();
      });

      it('two writer processes and a paging reader: every change once, in one order', async () => {
        const seen: Entry[] = [];
        let cursor: string | undefined;
        const readPage = async () => {
          const res = await reader.get(`/changes?limit=7${cursor ? `&after=${cursor}` : ''}`);
          assert.equal(res.status, 200, res.text);
          seen.push(...res.body.data);
          cursor = res.body.meta.next_cursor;
          return res.body.meta.has_more as boolean;
        };
        let done = false;
        const writers = Promise.all([runWriter(url, token, 'a'), runWriter(url, token, 'b')]).finally(() => {
          done = true;
        });
        while (!done) {
          await readPage();
          await new Promise((r) => setTimeout(r, 5));
        }
        await writers;
        // After the writers: read on until every change they made shows (on PostgreSQL a
        // transaction of another test file may hold the horizon back a moment), then once more.
        const expected = 2 * WRITES * 3 + 2 * Math.ceil(WRITES / 3) + WRITES;
        const ours = () => seen.filter((e) => e.resource === 'client' || e.resource === 'webhook').length;
        for (let tries = 0; ours() < expected && tries < 200; tries++) {
          while (await readPage());
          if (ours() < expected) await new Promise((r) => setTimeout(r, 100));
        }
        await new Promise((r) => setTimeout(r, 100));
        while (await readPage());
        const keys = seen.map((e) => `${e.resource}:${e.id}:${e.action}`);
        assert.equal(new Set(keys).size, keys.length, 'no change twice');
        assert.equal(new Set(seen.map((e) => e.cursor)).size, seen.length);
        const count = (resource: string, action: string) =>
          seen.filter((e) => e.resource === resource && e.action === action).length;
        assert.equal(count('client', 'created'), 2 * WRITES, 'every creation');
        assert.equal(count('client', 'updated'), 2 * WRITES, 'every update');
        assert.equal(count('client', 'archived'), 2 * Math.ceil(WRITES / 3), 'every archival');
        assert.equal(count('webhook', 'created'), 2 * WRITES, 'every webhook');
        assert.equal(count('webhook', 'deleted'), WRITES, 'every deletion');
        // Each resource's own changes in the order they were made.
        for (const e of seen.filter((x) => x.action === 'created')) {
          const mine = seen.filter((x) => x.resource === e.resource && x.id === e.id).map((x) => x.action);
          assert.deepEqual(
            mine,
            e.resource === 'client'
              ? mine.length === 3
                ? ['created', 'updated', 'archived']
                : ['created', 'updated']
              : mine.length === 2
                ? ['created', 'deleted']
                : ['created'],
          );
        }
        // One more reader from the start sees the very same sequence.
        const again: Entry[] = [];
        let c: string | undefined;
        for (;;) {
          const res = await reader.get(`/changes?limit=1000${c ? `&after=${c}` : ''}`);
          again.push(...res.body.data);
          c = res.body.meta.next_cursor;
          if (!res.body.meta.has_more) break;
        }
        assert.deepEqual(
          again.map((e) => e.cursor),
          seen.map((e) => e.cursor),
        );
      });

      if (kind === 'postgres') {
        it('a transaction that began first and commits last is served before what committed meanwhile', async () => {
          const start = (await reader.get('/changes?limit=1000')).body;
          let cursor = start.meta.next_cursor as string;
          while ((await reader.get(`/changes?limit=1000&after=${cursor}`)).body.data.length) {
            cursor = (await reader.get(`/changes?limit=1000&after=${cursor}`)).body.meta.next_cursor;
          }
          const accountId = (
            await handle.db.selectFrom('users').select('account_id').executeTakeFirstOrThrow()
          ).account_id;
          // A slow writer: its transaction gets the smaller xid and the smaller log id. (Users
          // and webhooks: tables no list-count trigger serializes.)
          const slow = await handle.db.startTransaction().execute();
          const early = await slow
            .insertInto('users')
            .values({ account_id: accountId, email: 'slow@test.example', first_name: 'S', last_name: 'Low' })
            .returning('id')
            .executeTakeFirstOrThrow();
          const late = await reader.post('/webhooks', {
            url: 'https://hooks.example.com/fast',
            scopes: ['task:create'],
          });
          assert.equal(late.status, 201);
          const meanwhile = await reader.get(`/changes?after=${cursor}`);
          assert.deepEqual(meanwhile.body.data, [], 'nothing while an older transaction runs');
          assert.equal(meanwhile.body.meta.next_cursor, cursor, 'the cursor stays put');
          await slow.commit().execute();
          let afterwards = await reader.get(`/changes?after=${cursor}`);
          // Other test files' transactions on the server may hold the horizon a moment longer.
          for (let i = 0; afterwards.body.data.length < 2 && i < 100; i++) {
            await new Promise((r) => setTimeout(r, 100));
            afterwards = await reader.get(`/changes?after=${cursor}`);
          }
          assert.deepEqual(
            afterwards.body.data.map((e: Entry) => `${e.resource}:${e.id}`),
            [`user:${early.id}`, `webhook:${late.body.data.id}`],
          );
        });
      }
    });
  }
}
