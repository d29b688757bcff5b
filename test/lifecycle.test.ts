import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import { buildApp } from '../src/app.js';
import { ConfigError, INSECURE_DEFAULT_SECRET_KEY, loadConfig } from '../src/config.js';
import { createDb } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { importData } from '../src/import/index.js';
import { createIntegration } from '../src/modules/integration/integration.service.js';
import { loggerOptions, redactUrl, requestLogger } from '../src/shared/logging.js';
import { Api } from './helpers.js';
import { TS_NODE_ARGS } from './spawn-ts.js';
import { Receiver, record, sleep, waitFor } from './webhooks.support.js';

const SECRET_KEY = 'lifecycle-test-secret-key-0123456789abcdef';

/** Processes started and not yet ended: whatever a failing test left, `after` ends them. */
const running = new Set<Proc>();

/** A process as an operator starts it, with its output kept line by line. */
class Proc {
  readonly child: ChildProcess;
  readonly out: string[] = [];
  readonly err: string[] = [];
  readonly exited: Promise<{ code: number | null; signal: string | null }>;

  constructor(command: string, args: string[], env: Record<string, string>) {
    this.child = spawn(command, args, {
      env: { ...process.env, HOST: '127.0.0.1', SEED_DEMO: 'false', SECRET_KEY, LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const collect = (into: string[]) => {
      let rest = '';
      return (chunk: Buffer) => {
        const lines = (rest + chunk.toString('utf8')).split('\n');
        rest = lines.pop()!;
        into.push(...lines);
      };
    };
    this.child.stdout!.on('data', collect(this.out));
    this.child.stderr!.on('data', collect(this.err));
    running.add(this);
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => {
        running.delete(this);
        resolve({ code, signal });
      }),
    );
  }

  /** The first log line (JSON on stdout) whose message matches. */
  async logLine(msg: RegExp, timeoutMs = 60_000): Promise<Record<string, unknown>> {
    let found: Record<string, unknown> | undefined;
    await waitFor(
      `a log line ${msg}`,
      () => {
        found = this.logs().find((l) => typeof l.msg === 'string' && msg.test(l.msg));
        return found !== undefined;
      },
      timeoutMs,
    );
    return found!;
  }

  logs(): Record<string, unknown>[] {
    return this.out.flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, unknown>];
      } catch {
        return []; // not a log line
      }
    });
  }

  /** The port a server said it listens on. */
  async port(): Promise<number> {
    const line = await this.logLine(/^Server listening at /);
    return Number(/:(\d+)$/.exec(line.msg as string)![1]);
  }
}

/**
 * stderr without the one line a dependency prints on every start under Node 20 (oidc-provider
 * asks for Node 22; package.json allows 20.12): not the service's output, and not an error.
 */
const ours = (lines: string[]) =>
  lines.filter((l) => !l.startsWith('oidc-provider WARNING: Unsupported runtime'));

const npm = (script: string[], env: Record<string, string>) => new Proc('npm', [...script, '--silent'], env);

/** Every process below `pid`, and `pid` itself. */
function tree(pid: number): number[] {
  const kids = execFileSync('sh', ['-c', `ps -o pid= --ppid ${pid} || true`], { encoding: 'utf8' })
    .split('\n')
    .map((l) => Number(l.trim()))
    .filter((n) => n > 0);
  return [pid, ...kids.flatMap(tree)];
}

/** Server processes under a supervisor (not, say, the TS loader's esbuild service). */
const serverProcesses = (pid: number) =>
  execFileSync('sh', ['-c', `ps -o pid=,args= --ppid ${pid} || true`], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.includes('src/server.ts'))
    .map((l) => Number(l.trim().split(/\s+/)[0]));

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED'));
  });

/** A process's command line, as `ps` shows it. */
const argsOf = (pid: number) => execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' });

/** The node process npm runs the script in (npm's `exec` makes it npm's own child). */
async function scriptProcess(npmPid: number): Promise<number> {
  let pid: number | undefined;
  await waitFor('the script process', () => {
    pid = tree(npmPid)[1];
    return pid !== undefined;
  });
  return pid!;
}

/** Reads one HTTP response from a raw socket: its status and body. */
function readResponse(socket: net.Socket): Promise<{ status: number; head: string; body: string }> {
  return new Promise((resolve, reject) => {
    let data = '';
    const done = () => {
      const [head, ...body] = data.split('\r\n\r\n');
      resolve({ status: Number(head!.split(' ')[1]), head: head!, body: body.join('\r\n\r\n') });
    };
    socket.on('data', (c: Buffer) => {
      data += c.toString('utf8');
      const m = /content-length: (\d+)/i.exec(data);
      const start = data.indexOf('\r\n\r\n');
      if (m && start >= 0 && data.length - start - 4 >= Number(m[1])) done();
    });
    socket.once('error', reject);
    socket.once('end', done);
  });
}

describe('process lifecycle', () => {
  let dir: string;
  let dbFile: string;
  let token: string;
  let accountId: number;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lifecycle-test-'));
    dbFile = join(dir, 'app.sqlite');
    const handle = createDb({ kind: 'sqlite', file: dbFile });
    await migrateToLatest(handle.db);
    const imported = await importData(handle.db, {
      account: { name: 'Lifecycle Co' },
      users: [{ email: 'admin@lifecycle.example', first_name: 'A', last_name: 'Dmin', role: 'admin' }],
    });
    accountId = imported.account_id;
    ({ access_token: token } = await createIntegration(handle.db, {
      name: 'lifecycle test',
      scopes: ['client:read', 'client:write', 'integration'],
    }));
    await handle.destroy();
  });
  after(async () => {
    // A test that failed before its own stop leaves its service running, and the test process
    // could not end while it runs: end every process of those trees.
    for (const p of running)
      for (const pid of tree(p.child.pid!).reverse()) if (alive(pid)) process.kill(pid, 'SIGKILL');
    await Promise.all([...running].map((p) => p.exited));
    await rm(dir, { recursive: true, force: true });
  });

  it('SIGTERM to `npm start` (one process by default) finishes the request in flight, refuses new connections, and leaves nothing running', async () => {
    const p = npm(['start'], { DATABASE_URL: dbFile, PORT: '0' });
    const port = await p.port();
    const pids = tree(p.child.pid!);
    assert.ok(pids.length >= 2, `npm and the server: ${pids}`);
    // Without WORKERS the service is this one process: no server processes below it.
    const server = await scriptProcess(p.child.pid!);
    assert.deepEqual(serverProcesses(server), []);
    // The young generation `npm start` pins (docs/configuration.md, Node flags).
    assert.match(argsOf(server), /--max-semi-space-size=16 /);

    // A request whose body is still arriving when the signal comes.
    const body = JSON.stringify({ name: 'Sent slowly' });
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    const response = readResponse(socket);
    socket.write(
      `POST /api/v1/clients HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 5)}`,
    );
    await sleep(200);
    p.child.kill('SIGTERM');
    await waitFor('the port to close', () => refused(port), 5000);
    socket.write(body.slice(5));
    const res = await response;
    assert.equal(res.status, 201, res.body);
    assert.equal(JSON.parse(res.body).data.name, 'Sent slowly');

    assert.deepEqual(await p.exited, { code: 0, signal: null }, [...p.out, ...p.err].join('\n'));
    assert.ok(await refused(port), 'nothing listens on the port');
    await waitFor('every process of the tree to end', () => pids.every((pid) => !alive(pid)), 3000);
    assert.deepEqual(ours(p.err), []);
  });

  it('SIGINT to `npm run worker` stops the worker and its process tree', async () => {
    const p = npm(['run', 'worker'], { DATABASE_URL: dbFile });
    await p.logLine(/webhook delivery worker started/);
    const pids = tree(p.child.pid!);
    p.child.kill('SIGINT');
    assert.deepEqual(await p.exited, { code: 0, signal: null });
    await waitFor('every process of the tree to end', () => pids.every((pid) => !alive(pid)), 3000);
  });

  it('start-up errors are one line on stderr and a non-zero exit: port in use, bad boolean, no SECRET_KEY in production', async () => {
    const holder = net.createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    const taken = (holder.address() as net.AddressInfo).port;
    try {
      const cases: { env: Record<string, string>; line: RegExp }[] = [
        {
          env: { PORT: String(taken) },
          line: new RegExp(`^error: port ${taken} is already in use \\(EADDRINUSE\\); set PORT$`),
        },
        { env: { PORT: String(taken), WORKERS: '2' }, line: /^error: port \d+ is already in use/ },
        {
          env: { RUN_WORKER: 'ture' },
          line: /^error: RUN_WORKER must be true\/false\/1\/0\/yes\/no\/on\/off, got "ture"$/,
        },
        {
          env: { NODE_ENV: 'production', SECRET_KEY: '' },
          line: /^error: SECRET_KEY is not set; with NODE_ENV=production/,
        },
        {
          env: { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
          line: /^error: the database is unreachable at 127\.0\.0\.1:1 \(ECONNREFUSED\)/,
        },
      ];
      const runs = cases.map((c) => npm(['start'], { DATABASE_URL: dbFile, LOG_LEVEL: 'silent', ...c.env }));
      for (const [i, run] of runs.entries()) {
        const { code } = await run.exited;
        assert.equal(code, 1, JSON.stringify(cases[i]!.env));
        const err = ours(run.err);
        assert.equal(err.length, 1, run.err.join('\n'));
        assert.match(err[0]!, cases[i]!.line);
      }
    } finally {
      holder.close();
    }
  });

  it('WORKERS=2: a replacement that dies before it listens is retried with back-off while the healthy process serves', async () => {
    const p = npm(['start'], { DATABASE_URL: dbFile, PORT: '0', WORKERS: '2' });
    // Everything after the start inside the try: a failure anywhere still stops the service,
    // or its processes would outlive the test and keep the test process from ending.
    try {
      const { port } = (await p.logLine(/^server processes listening$/)) as { port: number };
      const supervisor = await scriptProcess(p.child.pid!);
      const [victim, healthy] = serverProcesses(supervisor);
      // Server processes take the supervisor's node flags.
      for (const pid of [victim!, healthy!]) assert.match(argsOf(pid), /--max-semi-space-size=16 /);
      const get = () =>
        fetch(`http://127.0.0.1:${port}/api/v1/clients/full`, {
          headers: { authorization: `Bearer ${token}`, connection: 'close' },
          signal: AbortSignal.timeout(5000),
        }).then((r) => r.status);
      process.kill(victim!, 'SIGKILL');
      // Its replacement is killed as soon as it appears: long before it could listen.
      let replacement: number | undefined;
      await waitFor(
        'a replacement',
        () => {
          replacement = serverProcesses(supervisor).find((pid) => pid !== victim && pid !== healthy);
          return replacement !== undefined;
        },
        5000,
      );
      process.kill(replacement!, 'SIGKILL');
      await p.logLine(/exited before it listened/);

      // The healthy process serves all along, and the supervisor tries again after a pause.
      for (let i = 0; i < 10; i++) {
        assert.equal(await get(), 200);
        await sleep(100);
      }
      assert.ok(alive(healthy!));
      await waitFor(
        'two server processes again',
        () => p.logs().filter((l) => /^Server listening/.test(String(l.msg))).length === 3,
        60_000,
      );
      assert.equal(serverProcesses(supervisor).length, 2);
      assert.equal(await get(), 200);
    } finally {
      p.child.kill('SIGTERM');
      assert.deepEqual(await p.exited, { code: 0, signal: null });
    }
  });

  it('a webhook worker killed mid-run: its in-flight delivery is taken over within seconds, accepted ones are not sent again', async () => {
    const receiver = await new Receiver().start();
    const config = loadConfig({
      DATABASE_URL: dbFile,
      SECRET_KEY,
      LOG_LEVEL: 'silent',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    });
    const app = await buildApp(config, { logger: false });
    const workers: Proc[] = [];
    try {
      const res = await new Api(app, token).post('/webhooks', {
        url: `${receiver.url}/hook`,
        scopes: ['task:create'],
      });
      assert.equal(res.status, 201, res.text);
      // The fourth message hangs the first time: the worker is killed while it waits.
      const ids = () => receiver.requests.map((r) => r.headers['webhook-id']!);
      receiver.respond = (r) =>
        ids().indexOf(r.headers['webhook-id']!) === 3 &&
        ids().filter((id) => id === r.headers['webhook-id']).length === 1
          ? { status: 200, delayMs: 60_000 }
          : 200;
      for (let i = 1; i <= 8; i++) await record(app.db, accountId, 'task:created', { id: i });

      const env = { DATABASE_URL: dbFile, WEBHOOK_ALLOW_PRIVATE: 'true' };
      workers.push(new Proc(process.execPath, [...TS_NODE_ARGS, 'src/worker.ts'], env));
      await waitFor('four deliveries, the last in flight', () => receiver.requests.length === 4, 60_000);
      workers.push(new Proc(process.execPath, [...TS_NODE_ARGS, 'src/worker.ts'], env));
      await workers[1]!.logLine(/webhook delivery worker started/);
      assert.equal(receiver.requests.length, 4, 'the second worker waits: the run is claimed');

      workers[0]!.child.kill('SIGKILL');
      const killedAt = Date.now();
      await waitFor(
        'all eight messages',
        () => new Set(ids()).size === 8 && receiver.requests.length >= 9,
        30_000,
      ).catch((err: Error) => {
        const log = [...workers[1]!.out, ...workers[1]!.err].join('\n');
        throw new Error(`${err.message}: ${receiver.requests.length} received; second worker:\n${log}`);
      });
      await sleep(300);

      const sent = ids();
      const order = sent.map((id) => sent.indexOf(id));
      assert.equal(sent.length, 9, 'one message sent twice, no other');
      assert.deepEqual(order, [0, 1, 2, 3, 3, 5, 6, 7, 8], 'the in-flight one again, then the rest in order');
      const takeover = receiver.requests[4]!.at - killedAt;
      assert.ok(takeover < 7000, `taken over after ${takeover} ms`);
      const events = receiver.requests.map((r) => JSON.parse(r.body).data.id);
      assert.deepEqual(events, [1, 2, 3, 4, 4, 5, 6, 7, 8]);
      const rows = await app.db.selectFrom('webhook_deliveries').select(['status']).execute();
      assert.deepEqual(new Set(rows.map((r) => r.status)), new Set(['delivered']));
    } finally {
      for (const w of workers) w.child.kill('SIGKILL');
      await app.close();
      await receiver.stop();
    }
  });
});

describe('configuration', () => {
  const key = 'k'.repeat(32);

  it('booleans are true/false/1/0/yes/no/on/off in any case; anything else names the variable', () => {
    for (const [v, want] of [
      ['TRUE', true],
      ['off', false],
      ['1', true],
      ['No', false],
      ['on', true],
      ['0', false],
    ] as const)
      assert.equal(loadConfig({ SEED_DEMO: v }).seedDemo, want, v);
    for (const v of ['flase', 'y', '2', 'enabled'])
      assert.throws(
        () => loadConfig({ WEBHOOK_ALLOW_PRIVATE: v }),
        (e: Error) => e instanceof ConfigError && e.message.startsWith('WEBHOOK_ALLOW_PRIVATE must be'),
      );
  });

  it('numbers are plain non-negative integers; ports at most 65535', () => {
    assert.equal(loadConfig({ BODY_LIMIT: '2048' }).bodyLimit, 2048);
    for (const [name, v] of [
      ['BODY_LIMIT', '1e3'],
      ['PORT', '0x50'],
      ['PORT', '70000'],
      ['WORKERS', '-1'],
      ['WEBHOOK_POLL_MS', ' 12'],
      ['RATE_LIMIT_PER_MINUTE', 'lots'],
    ])
      assert.throws(
        () => loadConfig({ [name]: v }),
        (e: Error) => e instanceof ConfigError && e.message.startsWith(`${name} must be`),
      );
    assert.throws(() => loadConfig({ LOG_LEVEL: 'verbose' }), /LOG_LEVEL must be one of/);
  });

  it('a value below what works is refused with its range, not raised to it; timers stop at 2^31 - 1 ms', () => {
    for (const [name, v, message] of [
      ['WEBHOOK_CONCURRENCY', '0', 'WEBHOOK_CONCURRENCY must be an integer from 1 to'],
      ['EXTRACTION_THREADS', '0', 'EXTRACTION_THREADS must be an integer from 1 to'],
      ['EXTRACTION_TIMEOUT_MS', '99', 'EXTRACTION_TIMEOUT_MS must be an integer from 100 to 2147483647,'],
      ['EXTRACTION_MEMORY_MB', '31', 'EXTRACTION_MEMORY_MB must be an integer from 32 to'],
      ['EXTRACTION_MAX_PAGES', '0', 'EXTRACTION_MAX_PAGES must be an integer from 1 to'],
      ['OCR_THREADS', '0', 'OCR_THREADS must be an integer from 1 to'],
      ['OCR_TIMEOUT_SECONDS', '0', 'OCR_TIMEOUT_SECONDS must be an integer from 1 to 2147483,'],
      ['OCR_TIMEOUT_SECONDS', '2147484', 'OCR_TIMEOUT_SECONDS must be an integer from 1 to 2147483,'],
      ['REQUEST_TIMEOUT_SECONDS', '0', 'REQUEST_TIMEOUT_SECONDS must be an integer from 1 to 2147483,'],
      ['WEBHOOK_POLL_MS', '2147483648', 'WEBHOOK_POLL_MS must be an integer from 0 to 2147483647,'],
    ])
      assert.throws(
        () => loadConfig({ [name!]: v }),
        (e: Error) => e instanceof ConfigError && e.message.startsWith(message!),
        `${name}=${v}`,
      );
    // The least and the largest values that work are taken as given.
    const c = loadConfig({
      WEBHOOK_CONCURRENCY: '1',
      EXTRACTION_TIMEOUT_MS: '100',
      EXTRACTION_MEMORY_MB: '32',
      OCR_TIMEOUT_SECONDS: '2147483',
      REQUEST_TIMEOUT_SECONDS: '1',
    });
    assert.equal(c.webhookConcurrency, 1);
    assert.equal(c.extractionTimeoutMs, 100);
    assert.equal(c.extractionMemoryMb, 32);
    assert.equal(c.ocrTimeoutMs, 2_147_483_000);
    assert.equal(c.requestTimeoutSeconds, 1);
  });

  it('NODE_ENV=production needs a SECRET_KEY of 32 characters or more, not the published default; elsewhere a warning', () => {
    for (const SECRET_KEY of [undefined, '', INSECURE_DEFAULT_SECRET_KEY, 'short-secret'])
      assert.throws(
        () => loadConfig({ NODE_ENV: 'production', SECRET_KEY }),
        ConfigError,
        String(SECRET_KEY),
      );
    assert.deepEqual(loadConfig({ NODE_ENV: 'production', SECRET_KEY: key }).warnings, []);
    const dev = loadConfig({});
    assert.equal(dev.warnings.length, 1);
    assert.match(dev.warnings[0]!, /SECRET_KEY is not set/);
    assert.deepEqual(loadConfig({ SECRET_KEY: key }).warnings, []);
  });
});

describe('logs', () => {
  it('redacts credentials in query strings and never writes the Authorization header', async () => {
    assert.equal(
      redactUrl('/api/v1/clients?access_token=abc&page=2&Client_Secret=s&CODE=c&q=token'),
      '/api/v1/clients?access_token=[redacted]&page=2&Client_Secret=[redacted]&CODE=[redacted]&q=token',
    );
    assert.equal(redactUrl('/a?refresh_token=x&token=y'), '/a?refresh_token=[redacted]&token=[redacted]');
    assert.equal(redactUrl('/a?%74oken=x'), '/a?%74oken=[redacted]');
    assert.equal(redactUrl('/a/b'), '/a/b');

    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, cb) {
        lines.push(chunk.toString());
        cb();
      },
    });
    const app = Fastify({ logger: { ...loggerOptions('info'), stream } });
    app.get('/x', async (req) => {
      req.log.info({ req }, 'handler saw the request');
      req.log.info({ headers: req.headers }, 'and its headers');
      return {};
    });
    await app.inject({
      url: '/x?access_token=SECRET1&client_secret=SECRET2&page=1',
      headers: { authorization: 'Bearer SECRET3' },
    });
    await app.close();
    const all = lines.join('');
    assert.match(all, /access_token=\[redacted\]/);
    for (const s of ['SECRET1', 'SECRET2', 'SECRET3']) assert.ok(!all.includes(s), `${s} in the log: ${all}`);
  });

  it("a request's logger (made into pino's child on its first line) writes what pino's child would", async () => {
    /** The lines a request writes at `level`, through Fastify's own child loggers or ours. */
    async function logged(level: string, factory?: typeof requestLogger) {
      const lines: Record<string, unknown>[] = [];
      const stream = { write: (line: string) => lines.push(JSON.parse(line)) };
      const app = Fastify({
        logger: { ...loggerOptions(level), stream },
        genReqId: () => 'req-7',
        ...(factory ? { childLoggerFactory: factory } : {}),
      });
      app.get('/x', async (req) => {
        req.log.debug('debug line');
        req.log.info({ headers: { authorization: 'Bearer SECRET' } }, 'info line');
        req.log.warn({ n: 1 }, 'warn line');
        req.log.child({ part: 'inner' }).error('child line');
        return { level: req.log.level };
      });
      const res = await app.inject({ url: '/x?code=SECRET' });
      await app.close();
      assert.equal(res.json().level, level);
      return lines.map(({ time: _, pid: __, hostname: ___, responseTime: ____, ...line }) => line);
    }
    for (const level of ['debug', 'info', 'warn', 'silent']) {
      const ours = await logged(level, requestLogger);
      assert.deepEqual(ours, await logged(level), level);
      if (level === 'warn')
        assert.deepEqual(
          ours.map((l) => [l.reqId, l.msg, l.part]),
          [
            ['req-7', 'warn line', undefined],
            ['req-7', 'child line', 'inner'],
          ],
        );
      assert.ok(!JSON.stringify(ours).includes('SECRET'), level);
    }
  });
});

describe('closing', () => {
  it('a request arriving while the server drains is 503 problem+json with Retry-After, logged as information', async () => {
    const config = loadConfig({
      DATABASE_URL: ':memory:',
      SECRET_KEY,
      LOG_LEVEL: 'silent',
      RUN_WORKER: 'false',
    });
    const logged: { level: number; msg: string }[] = [];
    const stream = { write: (line: string) => logged.push(JSON.parse(line)) };
    const app = await buildApp(config, { logger: { level: 'info', stream } });
    app.get('/slow', { config: { public: true } }, async () => {
      await sleep(300);
      return { ok: true };
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as net.AddressInfo).port;
    const slow = fetch(`http://127.0.0.1:${port}/slow`).then((r) => r.status);
    // A connection that has begun a request is not idle: closing leaves it open.
    const late = net.connect(port, '127.0.0.1');
    await new Promise((r) => late.once('connect', r));
    late.write('GET /api/v1/clients HTTP/1.1\r\nHost: x\r\n');
    await sleep(100);
    const closed = app.close();
    await sleep(50);
    const answer = readResponse(late);
    late.write('\r\n');
    const res = await answer;
    assert.equal(res.status, 503);
    assert.match(res.head, /content-type: application\/problem\+json/i);
    assert.match(res.head, /retry-after: 1/i);
    assert.equal(JSON.parse(res.body).code, 'unavailable');
    assert.equal(await slow, 200, 'the request in flight finished');
    await closed;
    // Expected during a stop: logged as information, not as a failure.
    assert.ok(logged.some((l) => l.level === 30 && /shutting down/.test(l.msg)));
    assert.deepEqual(
      logged.filter((l) => l.level >= 50),
      [],
    );
  });
});
