// A DATABASE_URL naming a PostgreSQL database that does not exist: the service makes it when
// its user may (server start, the CLI), and says how to make it when not. Each test uses a
// database of a random name, dropped after.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { runCli } from '../src/cli/index.js';
import { createDatabaseIfMissing } from '../src/db/create-database.js';
import { PG_URL, pgUrlFor } from './helpers.js';
import { TS_NODE_ARGS } from './spawn-ts.js';

const randomName = (what: string) => `pmi_${what}_${randomBytes(5).toString('hex')}`;

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

const exists = (name: string) =>
  admin(async (c) => (await c.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1);

describe('a PostgreSQL database that does not exist', { skip: !PG_URL && 'no PostgreSQL' }, () => {
  const databases: string[] = [];
  const roles: string[] = [];
  const fresh = (what: string) => {
    const name = randomName(what);
    databases.push(name);
    return name;
  };
  after(async () => {
    await admin(async (c) => {
      for (const d of databases) await c.query(`drop database if exists "${d}" with (force)`);
      for (const r of roles) await c.query(`drop role if exists "${r}"`);
    });
  });

  it('is created once, as the URL’s user; an existing one is left alone', async () => {
    const name = fresh('create');
    const url = pgUrlFor(name);
    assert.equal(await exists(name), false);
    assert.match(
      (await createDatabaseIfMissing({ kind: 'postgres', url }))!,
      new RegExp(`created .*"${name}"`),
    );
    assert.equal(await exists(name), true);
    assert.equal(await createDatabaseIfMissing({ kind: 'postgres', url }), undefined);
    assert.equal(await createDatabaseIfMissing({ kind: 'sqlite', file: ':memory:' }), undefined);
  });

  it('a user who may not create databases is told how to create it, and nothing is made', async () => {
    const role = randomName('role');
    roles.push(role);
    await admin((c) => c.query(`create role "${role}" login nocreatedb`));
    const name = fresh('refused');
    const url = new URL(pgUrlFor(name));
    url.username = role;
    await assert.rejects(createDatabaseIfMissing({ kind: 'postgres', url: url.toString() }), (err: Error) => {
      assert.match(
        err.message,
        new RegExp(`database "${name}" does not exist and user "${role}" may not create it`),
      );
      assert.match(err.message, new RegExp(`createdb .*-O ${role} ${name}$`));
      return true;
    });
    assert.equal(await exists(name), false);
  });

  it('the CLI makes it, then migrates', async () => {
    const name = fresh('cli');
    let stdout = '';
    let stderr = '';
    const code = await runCli(['migrate'], {
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: (s: string) => (stderr += s) },
      env: { ...process.env, DATABASE_URL: pgUrlFor(name) },
    });
    assert.equal(code, 0, stderr);
    assert.equal(stdout, 'migrations applied\n');
    assert.match(stderr, new RegExp(`^created the PostgreSQL database "${name}"`));
  });

  it('the server (npm start) makes it and serves /ready', async () => {
    const name = fresh('server');
    const child = spawn(process.execPath, [...TS_NODE_ARGS, 'src/server.ts'], {
      env: {
        ...process.env,
        DATABASE_URL: pgUrlFor(name),
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        SEED_DEMO: 'false',
      },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    try {
      const port = await new Promise<number>((resolve, reject) => {
        child.on('message', (m: { ready?: boolean; port?: number }) => m.ready && resolve(m.port!));
        child.on('exit', (c) => reject(new Error(`exited with ${c}: ${stderr}`)));
      });
      const ready = await fetch(`http://127.0.0.1:${port}/ready`);
      assert.equal(ready.status, 200);
      assert.match(stderr, new RegExp(`created the PostgreSQL database "${name}"`));
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});
