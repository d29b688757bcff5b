import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { importData } from '../src/import/index.js';
import { createIntegration } from '../src/modules/integration/integration.service.js';

import { TS_NODE_ARGS } from './spawn-ts.js';

/**
 * The rate-limit clock of the server processes stands still (see server.clock.ts), at a time
 * far from now: the window every process counted in shows that each one had it.
 */
const CLOCK = ['--import', fileURLToPath(new URL('./server.clock.ts', import.meta.url))];
const FROZEN_AT = Date.UTC(2025, 0, 1, 0, 0, 1);

/** `npm start` as a process: resolves with its port once every server process listens. */
function start(env: Record<string, string>): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...TS_NODE_ARGS, ...CLOCK, 'src/server.ts'], {
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        SEED_DEMO: 'false',
        RATE_CLOCK_MS: String(FROZEN_AT),
        ...env,
      },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    child.on(
      'message',
      (m: { ready?: boolean; port?: number }) => m.ready && resolve({ child, port: m.port! }),
    );
    child.on('exit', (code) => reject(new Error(`exited with ${code} before it served`)));
  });
}

/** The server processes a supervisor started (not, say, a helper process of the TS loader). */
const childrenOf = (pid: number) =>
  execFileSync('sh', ['-c', `ps -o pid=,args= --ppid ${pid} || true`], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.includes('src/server.ts'));

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

describe('npm start', () => {
  let dir: string;
  let dbFile: string;
  let token: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'server-test-'));
    dbFile = join(dir, 'server.sqlite');
    const handle = createDb(loadConfig({ DATABASE_URL: dbFile }).db);
    await migrateToLatest(handle.db);
    await importData(handle.db, {
      account: { name: 'Server Co' },
      users: [{ email: 'admin@server.example', first_name: 'A', last_name: 'Dmin', role: 'admin' }],
    });
    ({ access_token: token } = await createIntegration(handle.db, {
      name: 'server test',
      scopes: ['client:read', 'client:write'],
    }));
    await handle.destroy();
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  // A new connection per request, so the server processes take turns.
  const call = (port: number, method: string, path: string, body?: unknown) =>
    fetch(`http://127.0.0.1:${port}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        connection: 'close',
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(10_000),
    });

  // One process by default, and SIGTERM to it: test/lifecycle.test.ts (`npm start`).
  it('serves from N processes with WORKERS=N, one budget for all, replaces a dead one, stops on SIGTERM', async () => {
    const { child, port } = await start({ DATABASE_URL: dbFile, WORKERS: '2', RATE_LIMIT_PER_MINUTE: '12' });
    try {
      assert.equal(childrenOf(child.pid!).length, 2, 'two server processes');

      // Writes from both processes land in the one database; each answer sees the others.
      const created: number[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await call(port, 'POST', '/clients', { name: `Client ${i}` });
        assert.equal(res.status, 201);
        created.push(((await res.json()) as { data: { id: number } }).data.id);
      }
      for (const id of created) assert.equal((await call(port, 'GET', `/clients/${id}`)).status, 200);
      // 12 requests a minute in all, whichever process answers: 8 are used, 4 are left.
      let refused = 0;
      for (let i = 0; i < 12; i++) if ((await call(port, 'GET', '/clients/full')).status === 429) refused++;
      assert.equal(refused, 8);

      // A server process that dies is replaced, and the service goes on answering. (A
      // connection handed to the process as it died is lost with it: such requests may fail.)
      const [victim] = childrenOf(child.pid!).map((l) => Number(l.trim().split(/\s+/)[0]));
      process.kill(victim!, 'SIGKILL');
      const deadline = Date.now() + 30_000;
      let now = childrenOf(child.pid!);
      while (
        Date.now() < deadline &&
        (now.length < 2 || now.some((l) => l.trim().startsWith(`${victim} `)))
      ) {
        await new Promise((r) => setTimeout(r, 250));
        now = childrenOf(child.pid!);
      }
      assert.equal(now.length, 2, 'a new server process took its place');
      for (let i = 0; i < 4; i++) assert.equal((await call(port, 'GET', '/clients/full')).status, 429);

      // Every process counted in the frozen clock's window (server.clock.ts reached them all).
      const db = createDb(loadConfig({ DATABASE_URL: dbFile }).db);
      try {
        const windows = await db.db
          .selectFrom('rate_limit_windows')
          .select(['window_start', 'used'])
          .execute();
        assert.deepEqual(
          windows.map((w) => [Number(w.window_start), Number(w.used)]),
          [[FROZEN_AT - 1000, 12]],
        );
      } finally {
        await db.destroy();
      }
    } finally {
      assert.equal(await stop(child), 0);
    }
  });
});
