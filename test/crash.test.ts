import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDb, type DbHandle } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { importData } from '../src/import/index.js';
import { createIntegration } from '../src/modules/integration/integration.service.js';
import { PG_URL, pgUrlFor } from './helpers.js';
import { TS_NODE_ARGS } from './spawn-ts.js';

/**
 * The server is killed (SIGKILL) while it takes idempotent writes, and started again: every
 * write it acknowledged is there, and every key, retried after its lease, either replays the
 * first answer (its write had committed) or does the write now — never twice, never blocked.
 */
const LEASE_SECONDS = 2;
const ROUNDS = 3;
const CLIENTS = 12;

/** The server as `npm start` runs it (src/server.ts, one process): resolves once it listens. */
function start(databaseUrl: string): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...TS_NODE_ARGS, 'src/server.ts'], {
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'fatal',
        SEED_DEMO: 'false',
        RUN_WORKER: 'false',
        RATE_LIMIT_PER_MINUTE: '0',
        IDEMPOTENCY_LEASE_SECONDS: String(LEASE_SECONDS),
      },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    child.on(
      'message',
      (m: { ready?: boolean; port?: number }) => m.ready && resolve({ child, port: m.port! }),
    );
    child.on('exit', (code) => reject(new Error(`the server exited with ${code} before it served`)));
  });
}

function kill(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

interface Write {
  key: string;
  path: '/clients' | '/outgoing-invoices';
  body: Record<string, unknown>;
  /** The answer, when one came back. */
  status?: number;
  id?: number;
}

interface Target {
  url: string;
  handle: DbHandle;
  cleanup(): Promise<void>;
}

async function sqliteTarget(): Promise<Target> {
  const dir = await mkdtemp(join(tmpdir(), 'crash-test-'));
  const file = join(dir, 'crash.sqlite');
  return {
    url: file,
    handle: createDb(loadConfig({ DATABASE_URL: file }).db),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

async function pgTarget(): Promise<Target> {
  const name = `crash_${randomBytes(5).toString('hex')}`;
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
  const url = pgUrlFor(name);
  return {
    url,
    handle: createDb(loadConfig({ DATABASE_URL: url }).db),
    cleanup: () => admin(`drop database if exists ${name} with (force)`),
  };
}

const targets: [string, () => Promise<Target>][] = [['sqlite file', sqliteTarget]];
if (PG_URL) targets.push(['postgres', pgTarget]);

for (const [label, open] of targets) {
  describe(`crash during idempotent writes [${label}]`, () => {
    let target: Target;
    let token: string;
    let clientId: number;

    before(async () => {
      target = await open();
      const db = target.handle.db;
      await migrateToLatest(db);
      const { account_id } = await importData(db, {
        account: { name: 'Crash Co' },
        users: [{ email: 'admin@crash.example', first_name: 'A', last_name: 'Dmin', role: 'admin' }],
        clients: [{ name: 'Invoiced client' }],
      });
      clientId = (
        await db
          .selectFrom('clients')
          .select('id')
          .where('account_id', '=', account_id)
          .executeTakeFirstOrThrow()
      ).id;
      ({ access_token: token } = await createIntegration(db, {
        name: 'crash test',
        scopes: ['client:read', 'client:write', 'outgoing-invoice:read', 'outgoing-invoice:write'],
      }));
    });
    after(async () => {
      await target.handle.destroy();
      await target.cleanup();
    });

    const send = (port: number, w: Pick<Write, 'key' | 'path' | 'body'>) =>
      fetch(`http://127.0.0.1:${port}/api/v1${w.path}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'idempotency-key': w.key,
        },
        body: JSON.stringify(w.body),
        signal: AbortSignal.timeout(15_000),
      });

    /** How many records a write's unique name made (a title for invoices). */
    async function records(w: Write): Promise<{ n: number; id?: number }> {
      const db = target.handle.db;
      const name = String(w.body.name ?? w.body.title);
      const rows =
        w.path === '/clients'
          ? await db.selectFrom('clients').select('id').where('name', '=', name).execute()
          : await db.selectFrom('outgoing_invoices').select('id').where('title', '=', name).execute();
      return { n: rows.length, id: rows[0]?.id };
    }

    it('keeps every acknowledged write, and every key replays or runs anew after its lease', async () => {
      const writes: Write[] = [];
      let seq = 0;
      const next = (): Write => {
        const key = `crash-${label}-${++seq}`;
        const w: Write =
          seq % 2
            ? { key, path: '/clients', body: { name: key } }
            : {
                key,
                path: '/outgoing-invoices',
                body: {
                  client_id: clientId,
                  title: key,
                  line_items: [{ title: 'Work', quantity: 2, unit: 'h', unit_price: 80, tax_rate: 19 }],
                },
              };
        writes.push(w);
        return w;
      };

      for (let round = 0; round < ROUNDS; round++) {
        const { child, port } = await start(target.url);
        let acked = 0;
        let stop = false;
        const killed = new Promise<void>((resolve) => {
          // Kill once the load is well under way, at a moment the writes do not choose.
          const check = setInterval(() => {
            if (acked < 30) return;
            clearInterval(check);
            setTimeout(() => kill(child, 'SIGKILL').then(resolve), Math.floor(Math.random() * 40));
          }, 5);
        });
        const loops = Array.from({ length: CLIENTS }, async () => {
          while (!stop) {
            const w = next();
            try {
              const res = await send(port, w);
              const body = (await res.json()) as { data?: { id: number } };
              w.status = res.status;
              w.id = body.data?.id;
              if (res.ok) acked++;
            } catch {
              return; // the server died under this request
            }
          }
        });
        await killed;
        stop = true;
        await Promise.all(loops);
      }

      const acknowledged = writes.filter((w) => w.status !== undefined && w.status < 300);
      const refused = writes.filter((w) => w.status !== undefined && w.status >= 300);
      assert.deepEqual(
        refused.map((w) => `${w.key} ${w.status}`),
        [],
      );
      // Every acknowledged write is there, exactly once.
      for (const w of acknowledged) assert.deepEqual(await records(w), { n: 1, id: w.id }, w.key);

      // The retries go to a server started anew — in this process: what a restart changes is
      // the memory, and a spawn would add only its start-up (the kills above are real).
      const app = await buildApp(
        loadConfig({
          DATABASE_URL: target.url,
          LOG_LEVEL: 'fatal',
          SEED_DEMO: 'false',
          RUN_WORKER: 'false',
          RATE_LIMIT_PER_MINUTE: '0',
          IDEMPOTENCY_LEASE_SECONDS: String(LEASE_SECONDS),
        }),
        { logger: false },
      );
      await app.listen({ port: 0, host: '127.0.0.1' });
      const port = (app.server.address() as AddressInfo).port;
      try {
        // Retried after the lease that any request cut off by a kill still held.
        await new Promise((r) => setTimeout(r, LEASE_SECONDS * 1000 + 200));
        let replays = 0;
        let committedWithoutAck = 0;
        let performedOnRetry = 0;
        for (const w of writes) {
          const before = await records(w);
          assert.ok(before.n <= 1, `${w.key}: ${before.n} records`);
          const res = await send(port, w);
          const body = (await res.json()) as { data?: { id: number } };
          assert.ok(res.status === 201, `${w.key}: retry answered ${res.status} ${JSON.stringify(body)}`);
          const replayed = res.headers.get('idempotent-replayed') === 'true';
          if (before.n === 1) {
            // Its write had committed: the first answer, even if it never reached the client.
            assert.ok(replayed, `${w.key}: committed, but the retry did not replay`);
            assert.equal(body.data?.id, before.id, w.key);
            replays++;
            if (w.status === undefined) committedWithoutAck++;
          } else {
            assert.equal(replayed, false, `${w.key}: nothing committed, yet replayed`);
            assert.equal(w.status, undefined, `${w.key}: acknowledged but missing`);
            performedOnRetry++;
          }
          assert.deepEqual(await records(w), { n: 1, id: body.data?.id }, `${w.key} after its retry`);
        }
        const figures = {
          database: label,
          kills: ROUNDS,
          writes: writes.length,
          acknowledged: acknowledged.length,
          committed_without_ack: committedWithoutAck,
          replays,
          performed_on_retry: performedOnRetry,
          blocked_beyond_lease: 0,
          duplicates: 0,
        };
        console.log(`crash test: ${JSON.stringify(figures)}`);
        assert.equal(replays, acknowledged.length + committedWithoutAck);
      } finally {
        await app.close();
      }
    });

    // Writes without a key are group-committed on SQLite (db/group-commit.ts): many share a
    // transaction and are answered once its COMMIT is done. A kill at any moment — between
    // batches or inside one — may lose only writes that were never answered.
    it('keeps every acknowledged plain write (group commit), killed at any moment', async () => {
      const acked: { name: string; path: Write['path']; id: number }[] = [];
      const sent: { name: string; path: Write['path'] }[] = [];
      let seq = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const { child, port } = await start(target.url);
        let stop = false;
        const killed = new Promise<void>((resolve) => {
          const check = setInterval(() => {
            if (acked.length < 40 * (round + 1)) return;
            clearInterval(check);
            setTimeout(() => kill(child, 'SIGKILL').then(resolve), Math.floor(Math.random() * 40));
          }, 5);
        });
        const loops = Array.from({ length: CLIENTS * 2 }, async () => {
          while (!stop) {
            const name = `plain-${label}-${++seq}`;
            const path: Write['path'] = seq % 3 ? '/clients' : '/outgoing-invoices';
            const body =
              path === '/clients'
                ? { name }
                : {
                    client_id: clientId,
                    title: name,
                    line_items: [{ title: 'Work', quantity: 1, unit: 'h', unit_price: 80, tax_rate: 19 }],
                  };
            sent.push({ name, path });
            try {
              const res = await fetch(`http://127.0.0.1:${port}/api/v1${path}`, {
                method: 'POST',
                headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
                body: JSON.stringify(body),
                signal: AbortSignal.timeout(15_000),
              });
              const answer = (await res.json()) as { data?: { id: number } };
              assert.equal(res.status, 201, JSON.stringify(answer));
              acked.push({ name, path, id: answer.data!.id });
            } catch (err) {
              if (err instanceof assert.AssertionError) throw err;
              return; // the server died under this request
            }
          }
        });
        await killed;
        stop = true;
        await Promise.all(loops);
      }
      for (const a of acked) {
        const w: Write = {
          key: a.name,
          path: a.path,
          body: a.path === '/clients' ? { name: a.name } : { title: a.name },
        };
        assert.deepEqual(await records(w), { n: 1, id: a.id }, `${a.name} was acknowledged`);
      }
      // Unanswered ones were committed or not, never twice.
      for (const { name, path } of sent) {
        const { n } = await records({ key: name, path, body: { name, title: name } });
        assert.ok(n <= 1, `${name}: ${n} records`);
      }
      console.log(
        `crash test, plain writes: ${JSON.stringify({ database: label, kills: ROUNDS, sent: sent.length, acknowledged: acked.length })}`,
      );
    });
  });
}
