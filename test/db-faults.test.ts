import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, rm } from 'node:fs/promises';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { createDb, type DbHandle } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { pgTimeouts } from '../src/db/pg-pool.js';
import { createIntegration } from '../src/modules/integration/integration.service.js';
import { toAppError } from '../src/plugins/errors.js';
import {
  Api,
  countRows,
  createAccount,
  createTestDb,
  describeEachDb,
  expectProblem,
  PG_URL,
  pgUrlFor,
  testConfig,
} from './helpers.js';
import { TS_NODE_ARGS } from './spawn-ts.js';
import { Receiver, sleep, waitFor } from './webhooks.support.js';

// The suites are independent (a database each) and mostly wait on child processes: run them
// side by side, to keep the file's time well within the CI budget.
describe('database faults', { concurrency: true }, () => {
  // In this process, one after another.
  describe('in process', { concurrency: false }, () => {
    describe('database errors become problems', () => {
      // Errors as pg, pg-pool, Node and better-sqlite3 raise them.
      const sample = (message: string, props: Record<string, unknown> = {}) =>
        Object.assign(new Error(message), props);
      const cases: [string, Error, number, string][] = [
        [
          'connection refused',
          sample('connect ECONNREFUSED 127.0.0.1:5432', { code: 'ECONNREFUSED' }),
          503,
          'unavailable',
        ],
        [
          'refused on every address',
          new AggregateError([sample('x', { code: 'ECONNREFUSED' })], ''),
          503,
          'unavailable',
        ],
        ['reset', sample('read ECONNRESET', { code: 'ECONNRESET' }), 503, 'unavailable'],
        ['broken pipe', sample('write EPIPE', { code: 'EPIPE' }), 503, 'unavailable'],
        ['socket timeout', sample('connect ETIMEDOUT', { code: 'ETIMEDOUT' }), 503, 'unavailable'],
        ['terminated', sample('Connection terminated unexpectedly'), 503, 'unavailable'],
        ['connect timeout', sample('Connection terminated due to connection timeout'), 503, 'unavailable'],
        ['pool timeout', sample('timeout exceeded when trying to connect'), 503, 'unavailable'],
        ['query timeout', sample('Query read timeout'), 503, 'unavailable'],
        ['class 08', sample('connection failure', { code: '08006' }), 503, 'unavailable'],
        [
          'admin shutdown',
          sample('terminating connection due to administrator command', { code: '57P01' }),
          503,
          'unavailable',
        ],
        [
          'crash shutdown',
          sample('terminating connection because of crash', { code: '57P02' }),
          503,
          'unavailable',
        ],
        ['starting up', sample('the database system is starting up', { code: '57P03' }), 503, 'unavailable'],
        [
          'too many connections',
          sample('sorry, too many clients already', { code: '53300' }),
          503,
          'unavailable',
        ],
        [
          'statement timeout',
          sample('canceling statement due to statement timeout', { code: '57014' }),
          503,
          'unavailable',
        ],
        ['SQLite busy', sample('database is locked', { code: 'SQLITE_BUSY' }), 503, 'unavailable'],
        [
          'read-only transaction',
          sample('cannot execute INSERT in a read-only transaction', { code: '25006' }),
          503,
          'read_only',
        ],
        [
          'SQLite read-only',
          sample('attempt to write a readonly database', { code: 'SQLITE_READONLY' }),
          503,
          'read_only',
        ],
        ['SQLite WAL read-only', sample('x', { code: 'SQLITE_READONLY_CANTINIT' }), 503, 'read_only'],
        ['SQLite full', sample('database or disk is full', { code: 'SQLITE_FULL' }), 507, 'storage_full'],
        ['SQLite shm full', sample('disk I/O error', { code: 'SQLITE_IOERR_SHMSIZE' }), 507, 'storage_full'],
        ['PostgreSQL disk full', sample('could not extend file', { code: '53100' }), 507, 'storage_full'],
        ['anything else', sample('syntax error', { code: '42601' }), 500, 'internal'],
      ];
      for (const [name, err, status, code] of cases) {
        it(`${name} → ${status} ${code}`, () => {
          const problem = toAppError(err);
          assert.equal(problem.status, status);
          assert.equal(problem.code, code);
          if (code === 'unavailable') assert.ok(Number(problem.headers?.['retry-after']) > 0, 'Retry-After');
        });
      }

      it('PostgreSQL limits: defaults, DATABASE_URL parameters, unreadable values refused', () => {
        assert.deepEqual(pgTimeouts('postgres://u@h/db'), {
          connectMs: 3000,
          statementMs: 30_000,
          queryMs: 35_000,
          idleInTransactionMs: 60_000,
        });
        assert.deepEqual(
          pgTimeouts('postgres://u@h/db?connect_timeout=1&statement_timeout=0&query_timeout=0'),
          {
            connectMs: 1000,
            statementMs: 0,
            queryMs: 0,
            idleInTransactionMs: 60_000,
          },
        );
        assert.throws(
          () => pgTimeouts('postgres://u@h/db?statement_timeout=30s'),
          /DATABASE_URL: statement_timeout must be a whole number of milliseconds, got "30s"/,
        );
      });
    });

    describeEachDb('GET /health and GET /ready', (ctx) => {
      const get = (url: string) => ctx.app.inject({ method: 'GET', url });

      it('answer 200 without a token and are never rate limited', async () => {
        const app = await buildApp(testConfig({ rateLimitPerMinute: 1 }), {
          db: ctx.handle,
          logger: false,
          migrate: false,
        });
        try {
          for (let i = 0; i < 5; i++) {
            for (const url of ['/health', '/ready']) {
              const res = await app.inject({ method: 'GET', url });
              assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
              assert.deepEqual(res.json(), { status: 'ok' });
              assert.equal(res.headers['ratelimit'], undefined);
            }
          }
        } finally {
          await app.close();
        }
      });

      it('refuse query parameters like every other operation', async () => {
        const res = await get('/ready?verbose=1');
        assert.equal(res.statusCode, 422);
        assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      });

      it('are public operations in the OpenAPI document', async () => {
        const doc = (await get('/api/v1/openapi.json')).json();
        for (const path of ['/health', '/ready']) assert.deepEqual(doc.paths[path].get.security, [], path);
        assert.ok(doc.paths['/ready'].get.responses['503']);
      });

      it('/ready is 503 while a migration is pending, /health stays 200', async () => {
        const last = await sql<{ name: string; timestamp: string }>`
        select name, timestamp from kysely_migration order by name desc limit 1`.execute(ctx.db);
        const { name, timestamp } = last.rows[0]!;
        await sql`delete from kysely_migration where name = ${name}`.execute(ctx.db);
        try {
          const res = await get('/ready');
          assert.equal(res.statusCode, 503);
          assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
          assert.equal(res.json().code, 'unavailable');
          assert.equal(res.json().database, 'migrations_pending');
          assert.ok(res.headers['retry-after']);
          assert.equal((await get('/health')).statusCode, 200);
        } finally {
          await sql`insert into kysely_migration (name, timestamp) values (${name}, ${timestamp})`.execute(
            ctx.db,
          );
        }
        assert.equal((await get('/ready')).statusCode, 200);
      });
    });

    /** Captures the service's log lines. */
    function logSink() {
      const lines: string[] = [];
      return { lines, logger: { level: 'info', stream: { write: (line: string) => lines.push(line) } } };
    }

    describe('SQLite storage faults', () => {
      let dir: string;
      let handle: DbHandle;
      let app: FastifyInstance;
      let api: Api;
      const log = logSink();

      before(async () => {
        dir = await mkdtemp(join(tmpdir(), 'db-faults-'));
        handle = createDb({ kind: 'sqlite', file: join(dir, 'full.sqlite') });
        app = await buildApp(testConfig(), { db: handle, logger: log.logger });
        const account = await createAccount(handle.db);
        const { access_token } = await createIntegration(handle.db, {
          name: 'faults',
          scopes: ['client:read', 'client:write'],
          userId: account.users.admin,
        });
        api = new Api(app, access_token);
      });
      after(async () => {
        await app.close();
        await handle.destroy();
        await rm(dir, { recursive: true, force: true });
      });

      it('a full disk is 507 storage_full, the data stays intact, the log names the cause; writes resume once there is room', async () => {
        const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(handle.db);
        // The service's own connection may grow the file by two pages more, no further.
        await sql.raw(`pragma max_page_count = ${rows[0]!.page_count + 2}`).execute(handle.db);
        const before = await countRows(handle.db, 'clients');
        let created = 0;
        let full: Awaited<ReturnType<Api['post']>> | undefined;
        for (let i = 0; i < 200 && !full; i++) {
          const res = await api.post('/clients', { name: `Client ${i} ${'x'.repeat(200)}` });
          if (res.status === 201) created++;
          else full = res;
        }
        assert.ok(full, 'the disk filled up');
        expectProblem(full, 507, 'storage_full');
        assert.equal(
          await countRows(handle.db, 'clients'),
          before + created,
          'every acknowledged write, nothing else',
        );
        const integrity = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(handle.db);
        assert.equal(integrity.rows[0]!.integrity_check, 'ok');
        const logged = log.lines.join('');
        assert.match(logged, /SQLITE_FULL/);
        assert.match(logged, /database or disk is full/);
        assert.doesNotMatch(logged, /cannot rollback/);

        // An idempotent write (a transaction of the request's own) fails the same way, and its
        // key is free for the retry.
        const key = { 'idempotency-key': 'full-disk-retry' };
        expectProblem(await api.post('/clients', { name: 'y'.repeat(250) }, key), 507, 'storage_full');

        await sql`pragma max_page_count = 1073741823`.execute(handle.db);
        assert.equal((await api.post('/clients', { name: 'After the disk was freed' })).status, 201);
        assert.equal((await api.post('/clients', { name: 'y'.repeat(250) }, key)).status, 201);
      });

      it('a database that turned read-only is 503 read_only for writes, reads go on', async () => {
        await sql`pragma query_only = 1`.execute(handle.db);
        try {
          const res = await api.post('/clients', { name: 'Not now' });
          expectProblem(res, 503, 'read_only');
          assert.ok(res.headers['retry-after']);
          assert.equal((await api.get('/clients')).status, 200);
          assert.match(log.lines.join(''), /SQLITE_READONLY/);
        } finally {
          await sql`pragma query_only = 0`.execute(handle.db);
        }
        assert.equal((await api.post('/clients', { name: 'Writable again' })).status, 201);
      });
    });
  });

  /** `npm start` (src/server.ts) as a process; resolves with its port once it serves. */
  function startServer(env: Record<string, string>, opts: { uid?: number; gid?: number } = {}) {
    const child = spawn(process.execPath, [...TS_NODE_ARGS, 'src/server.ts'], {
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', SEED_DEMO: 'false', ...env },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      ...opts,
    });
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d));
    child.stderr!.on('data', (d: Buffer) => (output += d));
    const ready = new Promise<number>((resolve, reject) => {
      child.on('message', (m: { ready?: boolean; port?: number }) => m.ready && resolve(m.port!));
      child.on('exit', (code) => reject(Object.assign(new Error(`exited with ${code}`), { code })));
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    return { child, ready, exited, output: () => output };
  }

  describe('a database the service cannot write is refused at start-up', { concurrency: false }, () => {
    // As root, file modes do not stop writes: run the server as nobody, as a deployment would.
    const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    let dir: string;
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'db-readonly-'));
      await chmod(dir, 0o755);
    });
    after(async () => rm(dir, { recursive: true, force: true }));

    /** A migrated SQLite file in a directory of its own, owned by the server's user. */
    async function database(name: string): Promise<string> {
      const sub = join(dir, name);
      await mkdir(sub);
      const file = join(sub, 'app.sqlite');
      const handle = createDb({ kind: 'sqlite', file });
      await migrateToLatest(handle.db);
      await handle.destroy();
      if (asUser.uid !== undefined) {
        await chown(sub, asUser.uid, asUser.gid);
        await chown(file, asUser.uid, asUser.gid);
      }
      return file;
    }

    async function refused(file: string): Promise<string> {
      const server = startServer({ DATABASE_URL: file }, asUser);
      server.ready.catch(() => {});
      const code = await server.exited;
      assert.equal(code, 1, server.output());
      return server.output();
    }

    it('a read-only SQLite file, or a directory where SQLite cannot write its WAL', async () => {
      const roFile = await database('ro-file');
      await chmod(roFile, 0o444);
      const roDir = await database('ro-dir');
      await chmod(join(roDir, '..'), 0o555);
      const [fileOut, dirOut] = await Promise.all([refused(roFile), refused(roDir)]);
      for (const out of [fileOut, dirOut]) {
        assert.match(
          out,
          /the database cannot be written: attempt to write a readonly database \(SQLITE_READONLY/,
        );
        // One line that says it, not a stack trace.
        assert.doesNotMatch(out, /\n\s+at /);
      }
    });

    it('PostgreSQL in read-only mode, or a user without write rights', {
      skip: !PG_URL && 'no PostgreSQL',
    }, async () => {
      const handle = await createTestDb('postgres');
      const role = `ro_${Math.random().toString(36).slice(2, 10)}`;
      const admin = new pg.Client({ connectionString: PG_URL });
      await admin.connect();
      const others: DbHandle[] = [];
      try {
        await migrateToLatest(handle.db);
        const url = new URL(
          pgUrlFor((await sql<{ d: string }>`select current_database() as d`.execute(handle.db)).rows[0]!.d),
        );
        const readOnly = new URL(url);
        readOnly.searchParams.set('options', '-c default_transaction_read_only=on');
        others.push(createDb({ kind: 'postgres', url: readOnly.toString() }));
        await assert.rejects(
          migrateToLatest(others[0]!.db),
          /the database cannot be written: cannot execute UPDATE in a read-only transaction \(25006\)/,
        );

        await admin.query(`create role ${role} login`);
        await admin.query(`grant connect on database ${url.pathname.slice(1)} to ${role}`);
        await sql.raw(`grant usage on schema public to ${role}`).execute(handle.db);
        await sql.raw(`grant select on all tables in schema public to ${role}`).execute(handle.db);
        const asReader = new URL(url);
        asReader.username = role;
        others.push(createDb({ kind: 'postgres', url: asReader.toString() }));
        await assert.rejects(
          migrateToLatest(others[1]!.db),
          /the database cannot be written: permission denied for table accounts \(42501\)/,
        );
      } finally {
        for (const o of others) await o.destroy();
        await handle.destroy();
        await admin.query(`drop role if exists ${role}`).catch(() => {});
        await admin.end();
      }
    });
  });

  /**
   * A TCP proxy between the service and PostgreSQL that can fail the way networks and servers
   * do, without touching the PostgreSQL server other tests share: `refuse` (the server is down:
   * open connections reset, new ones refused), `blackhole` (a partition: connections open, but
   * nothing gets through either way, until `heal`).
   */
  class FaultProxy {
    port = 0;
    private server: net.Server | undefined;
    private readonly pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
    private holding = false;

    constructor(private readonly target: { host: string; port: number }) {}

    async listen(): Promise<void> {
      const server = net.createServer((client) => this.accept(client));
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(this.port, '127.0.0.1', () => resolve());
      });
      this.server = server;
      this.port = (server.address() as AddressInfo).port;
    }

    private accept(client: net.Socket) {
      const upstream = net.connect(this.target.port, this.target.host);
      const pair = { client, upstream };
      this.pairs.add(pair);
      const drop = () => {
        this.pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      for (const s of [client, upstream]) s.on('error', drop).on('close', drop);
      if (this.holding) this.hold(pair);
      else this.link(pair);
    }

    private link({ client, upstream }: { client: net.Socket; upstream: net.Socket }) {
      client.pipe(upstream);
      upstream.pipe(client);
    }

    private hold({ client, upstream }: { client: net.Socket; upstream: net.Socket }) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }

    /** Nothing passes; what was sent waits (as TCP retransmits) and arrives after `heal`. */
    blackhole(): void {
      this.holding = true;
      for (const p of this.pairs) this.hold(p);
    }

    async refuse(): Promise<void> {
      const server = this.server;
      this.server = undefined;
      for (const { client, upstream } of this.pairs) {
        client.resetAndDestroy();
        upstream.destroy();
      }
      this.pairs.clear();
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    }

    async heal(): Promise<void> {
      if (!this.server) await this.listen();
      this.holding = false;
      for (const p of this.pairs) this.link(p);
    }

    async close(): Promise<void> {
      await this.refuse();
    }
  }

  interface Outcome {
    at: number;
    ms: number;
    status: number;
    code?: string;
    retryAfter?: string | null;
    problemJson?: boolean;
    error?: string;
  }

  describe('losing PostgreSQL', { skip: !PG_URL && 'no PostgreSQL', concurrency: false }, () => {
    // Short limits so the test is quick; the defaults are 3 s to connect and 35 s per query.
    const CONNECT_S = 1;
    const QUERY_MS = 1500;
    const APP_NAME = 'db-faults-service';
    let handle: DbHandle;
    let dbName: string;
    let proxy: FaultProxy;
    let receiver: Receiver;
    let server: ReturnType<typeof startServer>;
    let base: string;
    let token: string;
    let clientId: number;

    before(async () => {
      handle = await createTestDb('postgres');
      await migrateToLatest(handle.db);
      dbName = (await sql<{ d: string }>`select current_database() as d`.execute(handle.db)).rows[0]!.d;
      const account = await createAccount(handle.db);
      ({ access_token: token } = await createIntegration(handle.db, {
        name: 'faults',
        scopes: ['client:read', 'client:write', 'contact-data:read', 'contact-data:write', 'integration'],
        userId: account.users.admin,
      }));
      const target = new URL(PG_URL!);
      proxy = new FaultProxy({ host: target.hostname, port: Number(target.port || 5432) });
      await proxy.listen();
      receiver = await new Receiver().start();
      const url = new URL(pgUrlFor(dbName));
      url.host = `127.0.0.1:${proxy.port}`;
      url.searchParams.set('connect_timeout', String(CONNECT_S));
      url.searchParams.set('query_timeout', String(QUERY_MS));
      url.searchParams.set('application_name', APP_NAME);
      server = startServer({
        DATABASE_URL: url.toString(),
        WORKERS: '2',
        RUN_WORKER: 'true',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        RATE_LIMIT_PER_MINUTE: '1000000',
      });
      base = `http://127.0.0.1:${await server.ready.catch((err) => {
        throw new Error(`the service did not start: ${err.message}\n${server.output()}`);
      })}`;
      const created = await call('POST', '/api/v1/clients', { name: 'Steady' });
      assert.equal(created.status, 201);
      clientId = ((await created.json()) as { data: { id: number } }).data.id;
      const hook = await call('POST', '/api/v1/webhooks', {
        url: `${receiver.url}/hook`,
        scopes: ['contact:create'],
      });
      assert.equal(hook.status, 201, await hook.text());
    });

    after(async () => {
      if (server && server.child.exitCode === null) {
        server.child.kill('SIGTERM');
        await server.exited;
      }
      await proxy?.close();
      await receiver?.stop();
      await handle?.destroy();
    });

    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(15_000),
      });

    /** The server processes (the supervisor's children): the same pids before and after means no restart. */
    const processes = () =>
      execFileSync('sh', ['-c', `ps -o pid=,args= --ppid ${server.child.pid} || true`], { encoding: 'utf8' })
        .split('\n')
        .filter((l) => l.includes('server.ts'))
        .map((l) => l.trim().split(/\s+/)[0])
        .sort();

    /** Requests from 4 clients, one after another each, reads and writes, until stopped. */
    function steadyLoad() {
      const outcomes: Outcome[] = [];
      let running = true;
      let n = 0;
      const one = async (i: number) => {
        const write = i % 2 === 1;
        const at = Date.now();
        try {
          const res = write
            ? await call('POST', '/api/v1/contacts', { last_name: `Load ${++n}` })
            : await call('GET', `/api/v1/clients/${clientId}`);
          const text = await res.text();
          const problemJson = /^application\/problem\+json/.test(res.headers.get('content-type') ?? '');
          outcomes.push({
            at,
            ms: Date.now() - at,
            status: res.status,
            code: problemJson ? (JSON.parse(text) as { code: string }).code : undefined,
            retryAfter: res.headers.get('retry-after'),
            problemJson,
          });
        } catch (err) {
          outcomes.push({ at, ms: Date.now() - at, status: 0, error: String(err) });
          await sleep(50);
        }
      };
      const loops = [0, 1, 2, 3].map(async (i) => {
        while (running) await one(i);
      });
      return {
        outcomes,
        since: (t: number) => outcomes.filter((o) => o.at >= t),
        stop: async () => {
          running = false;
          await Promise.all(loops);
        },
      };
    }

    /** Every answer is a success or a quick 503 problem with Retry-After: no 500, no dropped connection. */
    function assertOnly503(outcomes: Outcome[], maxMs: number, phase: string) {
      for (const o of outcomes) {
        if (o.status === 200 || o.status === 201) continue;
        assert.equal(o.status, 503, `${phase}: ${JSON.stringify(o)}\n${server.output().slice(-3000)}`);
        assert.ok(o.problemJson && o.code === 'unavailable', `${phase}: ${JSON.stringify(o)}`);
        assert.ok(Number(o.retryAfter) > 0, `${phase}: Retry-After ${o.retryAfter}`);
        assert.ok(o.ms < maxMs, `${phase}: answered in ${o.ms} ms (limit ${maxMs})`);
      }
    }

    /** Milliseconds from now until the service answers a read with 200 again. */
    async function recovery(): Promise<number> {
      const t0 = Date.now();
      for (;;) {
        const res = await call('GET', `/api/v1/clients/${clientId}`).catch(() => undefined);
        await res?.text();
        if (res?.status === 200) return Date.now() - t0;
        if (Date.now() - t0 > 10_000)
          throw new Error(`no recovery after 10 s\n${server.output().slice(-3000)}`);
        await sleep(20);
      }
    }

    const terminateBackends = async () => {
      const admin = new pg.Client({ connectionString: PG_URL });
      await admin.connect();
      try {
        const { rows } = await admin.query(
          `select pg_terminate_backend(pid) as ok from pg_stat_activity
           where datname = $1 and application_name = $2 and pid <> pg_backend_pid()`,
          [dbName, APP_NAME],
        );
        return rows.length;
      } finally {
        await admin.end();
      }
    };

    it('answers 503 quickly while the database is gone and recovers on its own, without a restart', async () => {
      const pids = processes();
      assert.equal(pids.length, 2, 'two server processes');
      const load = steadyLoad();
      const figures: Record<string, number | string> = {};
      try {
        await sleep(500);
        assert.ok(
          load.outcomes.length > 0 && load.outcomes.every((o) => o.status === 200 || o.status === 201),
        );

        // 1. Every connection of the service is terminated, three times over, under load.
        let t = Date.now();
        let terminated = 0;
        for (let i = 0; i < 3; i++) {
          terminated += await terminateBackends();
          await sleep(300);
        }
        assert.ok(terminated >= 3, `terminated ${terminated} connections`);
        figures.terminated_connections = terminated;
        figures.terminate_recovery_ms = await recovery();
        await sleep(300);
        assertOnly503(load.since(t), 5000, 'terminate');
        figures.terminate_503 = load.since(t).filter((o) => o.status === 503).length;

        // 2. The database refuses connections: quick 503s with Retry-After, /ready 503, /health 200.
        await proxy.refuse();
        t = Date.now();
        await sleep(1500);
        const ready = await fetch(`${base}/ready`, { signal: AbortSignal.timeout(10_000) });
        assert.equal(ready.status, 503);
        assert.equal(((await ready.json()) as { code: string }).code, 'unavailable');
        assert.ok(ready.headers.get('retry-after'));
        assert.equal((await fetch(`${base}/health`)).status, 200);
        const refused = load.since(t);
        assert.ok(
          refused.some((o) => o.status === 503),
          'the outage was answered with 503',
        );
        assertOnly503(refused, 3000, 'refuse');
        figures.refuse_503 = refused.filter((o) => o.status === 503).length;
        figures.refuse_503_max_ms = Math.max(...refused.map((o) => o.ms));
        await proxy.heal();
        figures.refuse_recovery_ms = await recovery();
        assert.equal((await fetch(`${base}/ready`)).status, 200);

        // 3. A partition: connections open, nothing answers. 503 within the limits, no hang.
        await sleep(300);
        proxy.blackhole();
        t = Date.now();
        await sleep(QUERY_MS + CONNECT_S * 1000 + 1500);
        const partitioned = load.since(t);
        assert.ok(
          partitioned.some((o) => o.status === 503),
          'the partition was answered with 503',
        );
        // A request meets at most the rate limiter's read and its own query, each cut off.
        assertOnly503(partitioned, 2 * QUERY_MS + CONNECT_S * 1000 + 1500, 'partition');
        figures.partition_503 = partitioned.filter((o) => o.status === 503).length;
        figures.partition_503_max_ms = Math.max(
          ...partitioned.filter((o) => o.status === 503).map((o) => o.ms),
        );
        await proxy.heal();
        figures.partition_recovery_ms = await recovery();
        await sleep(500);
      } finally {
        await load.stop();
      }
      // Nothing in between was anything but a success or a 503.
      assertOnly503(load.outcomes, 2 * QUERY_MS + CONNECT_S * 1000 + 1500, 'whole run');
      figures.requests = load.outcomes.length;
      console.log(`# outage figures: ${JSON.stringify(figures)}`);

      // Same processes: nothing died, nothing was restarted.
      assert.equal(server.child.exitCode, null, 'the supervisor is alive');
      assert.deepEqual(processes(), pids, 'the same server processes');

      // The webhook worker (in the supervisor) goes on delivering. (To a new webhook: one whose
      // deliveries were claimed while the database was unreachable waits for those leases.)
      const hook = await call('POST', '/api/v1/webhooks', {
        url: `${receiver.url}/after`,
        scopes: ['contact:create'],
      });
      assert.equal(hook.status, 201);
      const res = await call('POST', '/api/v1/contacts', { last_name: 'After the outage' });
      assert.equal(res.status, 201);
      await waitFor(
        'a delivery after the outage',
        () => receiver.on('/after').some((r) => r.body.includes('After the outage')),
        10_000,
      );
      assert.doesNotMatch(server.output(), /uncaught|unhandled/i);
    });
  });
});
