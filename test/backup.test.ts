import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { runCli } from '../src/cli/index.js';
import { createDb, type DbHandle } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { createIntegration } from '../src/modules/integration/integration.service.js';
import { Api, createAccount, multipart, testConfig } from './helpers.js';

async function cli(dbUrl: string, ...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env: { ...process.env, DATABASE_URL: dbUrl },
  });
  return { code, stdout, stderr };
}

const count = (file: string, table: string) => {
  const db = new SQLite(file, { readonly: true });
  try {
    return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
};

/** A server on `file` (listening, as `npm start` would), with a token of `scopes`. */
async function serve(file: string, token?: string) {
  const handle = createDb({ kind: 'sqlite', file });
  const app = await buildApp(testConfig({ db: { kind: 'sqlite', file } }), { db: handle, logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, handle, api: new Api(app, token) };
}

describe('backup and restore (SQLite) with files and a running server', () => {
  let dir: string;
  let live: string;
  let server: { app: FastifyInstance; handle: DbHandle; api: Api };
  let token: string;
  const uploads: Array<{ id: number; bytes: Buffer }> = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'backup-'));
    live = join(dir, 'live.sqlite');
    const setup = createDb({ kind: 'sqlite', file: live });
    await migrateToLatest(setup.db);
    const account = await createAccount(setup.db, {
      clients: [{ key: 'c', name: 'Backup client' }],
      projects: [{ key: 'p', client: 'c', name: 'Backup project', identifier: 'B-1' }],
      tasks: [{ project: 'p', name: 'Keep my files' }],
    });
    token = (
      await createIntegration(setup.db, {
        name: 'backup',
        scopes: ['client:read', 'client:write', 'task-management:read', 'task-management:write'],
        userId: account.users.admin,
      })
    ).access_token;
    await setup.destroy();
    server = await serve(live, token);
    const task = (await server.api.get('/tasks')).body.data[0].id;
    for (let i = 0; i < 3; i++) {
      const bytes = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(100_000 + i)]);
      const f = await multipart({ name: `scan-${i}.pdf`, type: 'application/pdf', data: bytes });
      const res = await server.api.request('POST', `/tasks/${task}/upload`, f.body, f.headers);
      assert.equal(res.status, 201, res.text);
      uploads.push({ id: res.body.data.id, bytes });
    }
  });
  after(async () => {
    await server?.app.close();
    await server?.handle.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  it('backup while the server writes: one committed state, files inside, no -wal, refuses to overwrite', async () => {
    const backup = join(dir, 'backup.sqlite');
    const before = count(live, 'clients');
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) {
        const res = await server.api.post('/clients', { name: `During backup ${written}` });
        assert.equal(res.status, 201);
        written++;
        await new Promise((r) => setImmediate(r));
      }
    })();
    await new Promise((r) => setTimeout(r, 30));
    const res = await cli(live, 'backup', backup);
    writing = false;
    await writer;
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /1 account\(s\)|2 account\(s\)/);
    assert.match(res.stdout, /3 file\(s\)/);
    assert.ok(written > 0, 'the server wrote during the backup');
    const copied = count(backup, 'clients');
    assert.ok(copied >= before && copied <= before + written, `${before} ≤ ${copied} ≤ ${before + written}`);
    assert.equal(count(backup, 'file_blobs'), 3);
    assert.equal(existsSync(`${backup}-wal`), false);
    const check = new SQLite(backup, { readonly: true });
    assert.equal(check.pragma('journal_mode', { simple: true }), 'delete');
    assert.equal(check.pragma('integrity_check', { simple: true }), 'ok');
    check.close();

    const again = await cli(live, 'backup', backup);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /exists; --force overwrites it/);
    assert.equal((await cli(live, 'backup', backup, '--force')).code, 0);
    assert.equal((await cli(live, 'backup', live)).code, 1, 'not onto the database itself');
  });

  it('restore: into a new database, or over one only with --force; the data and files come back', async () => {
    const backup = join(dir, 'backup.sqlite');
    const inBackup = count(backup, 'clients');
    // The live database moves on after the backup; restoring takes it back.
    assert.equal((await server.api.post('/clients', { name: 'After the backup' })).status, 201);
    await server.app.close();
    await server.handle.destroy();

    const fresh = join(dir, 'fresh.sqlite');
    const restored = await cli(fresh, 'restore', backup);
    assert.equal(restored.code, 0, restored.stderr);
    const refused = await cli(live, 'restore', backup);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /exists and would be overwritten; stop the server and add --force/);
    assert.ok(count(live, 'clients') > inBackup, 'nothing replaced');
    assert.equal((await cli(live, 'restore', backup, '--force')).code, 0);

    for (const file of [fresh, live]) {
      server = await serve(file, token);
      const clients = await server.api.get('/clients?per_page=100');
      assert.equal(clients.status, 200, 'the token of the backup works');
      assert.equal(clients.body.meta.total, inBackup);
      for (const u of uploads) {
        const res = await server.app.inject({
          url: `/api/v1/files/${u.id}/download`,
          headers: { authorization: `Bearer ${token}` },
        });
        assert.equal(res.statusCode, 200);
        assert.ok(res.rawPayload.equals(u.bytes), `file ${u.id} intact`);
      }
      if (file === fresh) {
        await server.app.close();
        await server.handle.destroy();
      }
    }
  });

  it('refuses what is not a backup of this service, a missing file, and PostgreSQL (saying pg_dump)', async () => {
    const junk = join(dir, 'junk.sqlite');
    await writeFile(junk, 'not a database at all');
    const notDb = await cli(join(dir, 'x.sqlite'), 'restore', junk);
    assert.equal(notDb.code, 1);
    assert.match(notDb.stderr, /is not a database of this service/);
    const other = join(dir, 'other.sqlite');
    new SQLite(other).exec('CREATE TABLE t (x)');
    assert.match(
      (await cli(join(dir, 'y.sqlite'), 'restore', other)).stderr,
      /not a database of this service/,
    );
    const missing = await cli(join(dir, 'x.sqlite'), 'restore', join(dir, 'nope.sqlite'));
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /there is no file/);
    for (const cmd of ['backup', 'restore']) {
      const pg = await cli('postgres://u@127.0.0.1:1/db', cmd, join(dir, 'pg.dump'));
      assert.equal(pg.code, 1);
      assert.match(pg.stderr, /PostgreSQL: back it up with pg_dump .* pg_restore .*SECRET_KEY/);
      assert.equal(pg.stderr.trim().split('\n').length, 1);
    }
  });
});
