import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import PDFDocument from 'pdfkit';
import pg from 'pg';
import { smallInvoicePdf } from '../eval/scan-fixtures.js';
import { imagesToPdf, scanPdf } from '../eval/scans.js';
import { createDb } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { importData } from '../src/import/index.js';
import { createIntegration } from '../src/modules/integration/integration.service.js';
import { PG_URL, pgUrlFor } from './helpers.js';
import { TS_NODE_ARGS } from './spawn-ts.js';
import { Receiver, record, waitFor } from './webhooks.support.js';

/**
 * A SIGTERM ends the service within its drain limit whatever its threads, children and
 * connections are doing: a thread parsing a large PDF, an OCR child reading a scan, a webhook
 * delivery whose receiver does not answer, a start-up not finished. One process and
 * WORKERS=2, SQLite and PostgreSQL.
 */
const DRAIN_LIMIT_SECONDS = 4;
/** On top of the limit: the signal's delivery and the exit on a machine under load. */
const MARGIN_MS = 3000;

/** Every process below `pid`, with its command line. */
function descendants(pid: number): { pid: number; args: string }[] {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3]! }));
  const below = (p: number): { pid: number; args: string }[] =>
    rows.filter((r) => r.ppid === p).flatMap((r) => [{ pid: r.pid, args: r.args }, ...below(r.pid)]);
  return below(pid);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

class Server {
  readonly child: ChildProcess;
  readonly out: string[] = [];
  readonly exited: Promise<{ code: number | null; signal: string | null; at: number }>;
  readonly ready: Promise<number>;

  constructor(env: Record<string, string>, entry = 'src/server.ts') {
    this.child = spawn(process.execPath, [...TS_NODE_ARGS, entry], {
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        PORT: '0',
        SEED_DEMO: 'false',
        LOG_LEVEL: 'info',
        SECRET_KEY: 'stop-test-secret-key-0123456789abcdef',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_POLL_MS: '100',
        RATE_LIMIT_PER_MINUTE: '0',
        DRAIN_LIMIT_SECONDS: String(DRAIN_LIMIT_SECONDS),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    let rest = '';
    this.child.stdout!.on('data', (c: Buffer) => {
      const lines = (rest + c.toString('utf8')).split('\n');
      rest = lines.pop()!;
      this.out.push(...lines);
    });
    this.child.stderr!.resume();
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
    );
    this.ready = new Promise((resolve, reject) => {
      this.child.on('message', (m: { ready?: boolean; port?: number }) => m.ready && resolve(m.port!));
      this.child.once('exit', () => reject(new Error(`exited before it served:\n${this.out.join('\n')}`)));
    });
    this.ready.catch(() => {});
  }

  /** SIGTERM; asserts that the process and every process below it are gone within the limit. */
  async stop(): Promise<{ ms: number; code: number | null }> {
    const tree = [this.child.pid!, ...descendants(this.child.pid!).map((d) => d.pid)];
    const sent = Date.now();
    this.child.kill('SIGTERM');
    const limit = DRAIN_LIMIT_SECONDS * 1000 + MARGIN_MS;
    const timer = setTimeout(() => this.child.kill('SIGKILL'), limit + 10_000);
    const { code, at } = await this.exited;
    clearTimeout(timer);
    const ms = at - sent;
    assert.ok(ms <= limit, `gone after ${ms} ms (limit ${limit}): ${this.out.slice(-5).join('\n')}`);
    await waitFor('every process of the tree to end', () => tree.every((p) => !alive(p)), 2000);
    return { ms, code };
  }

  logged(msg: RegExp): boolean {
    return this.out.some((l) => msg.test(l));
  }
}

/** A PDF with a lot of text on every page: reading it keeps a thread busy for many seconds. */
function largePdf(pages: number): Promise<Buffer> {
  return new Promise((resolve) => {
    const doc = new PDFDocument({ compress: false });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    for (let p = 0; p < pages; p++) {
      if (p) doc.addPage();
      for (let i = 0; i < 2000; i++)
        doc
          .fontSize(2)
          .text(`Line ${i} page ${p} Rechnung RE-${p}-${i} Betrag ${i}.00 EUR`, 5, 5 + (i % 400) * 2, {
            lineBreak: false,
          });
    }
    doc.end();
  });
}

interface Target {
  url: string;
  cleanup(): Promise<void>;
}

async function sqliteTarget(): Promise<Target> {
  const dir = await mkdtemp(join(tmpdir(), 'stop-test-'));
  return { url: join(dir, 'app.sqlite'), cleanup: () => rm(dir, { recursive: true, force: true }) };
}

async function pgTarget(): Promise<Target> {
  const name = `stop_${randomBytes(5).toString('hex')}`;
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
  return { url: pgUrlFor(name), cleanup: () => admin(`drop database if exists ${name} with (force)`) };
}

const targets: [string, () => Promise<Target>][] = [['sqlite', sqliteTarget]];
if (PG_URL) targets.push(['postgres', pgTarget]);

for (const [label, open] of targets) {
  describe(`a stop ends within the drain limit [${label}]`, () => {
    let target: Target;
    let token: string;
    let accountId: number;
    let pdf: Buffer;
    let scans: Buffer;
    const receiver = new Receiver();

    before(async () => {
      target = await open();
      const handle = createDb(
        target.url.startsWith('postgres')
          ? { kind: 'postgres', url: target.url }
          : { kind: 'sqlite', file: target.url },
      );
      await migrateToLatest(handle.db);
      ({ account_id: accountId } = await importData(handle.db, {
        account: { name: 'Stop Co' },
        users: [{ email: 'admin@stop.example', first_name: 'A', last_name: 'Dmin', role: 'admin' }],
      }));
      ({ access_token: token } = await createIntegration(handle.db, {
        name: 'stop test',
        scopes: ['incoming-invoice:read', 'incoming-invoice:write', 'integration'],
      }));
      await handle.destroy();
      pdf = await largePdf(20);
      const scan = await scanPdf(await smallInvoicePdf(), {
        rotateDeg: -1,
        blurPx: 0.5,
        paper: 248,
        seed: 5,
      });
      scans = await imagesToPdf(Array(5).fill(scan.images[0]!));
      await receiver.start();
      // The receiver never answers in time: the delivery is in flight until its timeout.
      receiver.respond = () => ({ status: 200, delayMs: 60_000 });
    });
    after(async () => {
      await receiver.stop();
      await target.cleanup();
    });

    const upload = (port: number, data: Buffer, name: string) => {
      const form = new FormData();
      form.append('file', new Blob([data], { type: 'application/pdf' }), name);
      return fetch(`http://127.0.0.1:${port}/api/v1/incoming-invoices`, {
        method: 'POST',
        body: form,
        headers: { authorization: `Bearer ${token}` },
      }).then(
        (r) => r.status,
        () => 'cut',
      );
    };

    it('`npm run worker` (src/worker.ts) with a webhook delivery in flight', async () => {
      // The webhook, registered through a server that is gone again.
      const api = new Server({ DATABASE_URL: target.url });
      const port = await api.ready;
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${receiver.url}/hook-worker`, scopes: ['task:create'] }),
      });
      assert.equal(res.status, 201, await res.text());
      await api.stop();
      const worker = new Server({ DATABASE_URL: target.url }, 'src/worker.ts');
      await waitFor('the worker to start', () => worker.logged(/webhook delivery worker started/), 60_000);
      const handle = createDb(
        target.url.startsWith('postgres')
          ? { kind: 'postgres', url: target.url }
          : { kind: 'sqlite', file: target.url },
      );
      try {
        await record(handle.db, accountId, 'task:created', { id: 2 });
      } finally {
        await handle.destroy();
      }
      await waitFor('the delivery to arrive', () => receiver.on('/hook-worker').length > 0, 30_000);
      await worker.stop();
    });

    for (const workers of ['1', '2']) {
      const env = () => ({ DATABASE_URL: target.url, WORKERS: workers });

      it(`WORKERS=${workers}: while an extraction thread parses a large PDF`, async () => {
        const server = new Server({ ...env(), EXTRACTION_TIMEOUT_MS: '120000' });
        const port = await server.ready;
        let answered = false;
        const answer = upload(port, pdf, 'large.pdf').finally(() => {
          answered = true;
        });
        await waitFor(
          'the upload to reach its handler',
          () => server.logged(/incoming-invoices/),
          30_000,
        ).catch(() => {});
        // Received in full and being read: the upload takes a while on a loaded machine.
        await new Promise((r) => setTimeout(r, 1500));
        assert.equal(answered, false, 'still being read when the signal comes');
        const { code } = await server.stop();
        // The stop ran out of time and says so (with WORKERS, the server process does).
        assert.ok(server.logged(/still busy after/), server.out.slice(-5).join('\n'));
        if (workers === '1') assert.equal(code, 1);
        await answer;
      });

      it(`WORKERS=${workers}: while an OCR child reads a scan`, async () => {
        const server = new Server(env());
        const port = await server.ready;
        // Taken (201, or 202 while its reading is queued): an extraction job for the OCR worker.
        const status = await upload(port, scans, 'scans.pdf');
        assert.ok(status === 201 || status === 202, String(status));
        await waitFor(
          'an OCR child process',
          () => descendants(server.child.pid!).some((d) => d.args.includes('ocr.worker')),
          60_000,
        );
        await server.stop();
      });

      it(`WORKERS=${workers}: with a webhook delivery in flight`, async () => {
        const server = new Server(env());
        const port = await server.ready;
        const res = await fetch(`http://127.0.0.1:${port}/api/v1/webhooks`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ url: `${receiver.url}/hook-${workers}`, scopes: ['task:create'] }),
        });
        assert.equal(res.status, 201, await res.text());
        const handle = createDb(
          target.url.startsWith('postgres')
            ? { kind: 'postgres', url: target.url }
            : { kind: 'sqlite', file: target.url },
        );
        try {
          await record(handle.db, accountId, 'task:created', { id: 1 });
        } finally {
          await handle.destroy();
        }
        await waitFor('the delivery to arrive', () => receiver.on(`/hook-${workers}`).length > 0, 30_000);
        await server.stop();
      });

      it(`WORKERS=${workers}: during start-up`, async () => {
        const server = new Server(env());
        let ready = false;
        server.ready.then(
          () => {
            ready = true;
          },
          () => {},
        );
        // One process: its modules are loading. WORKERS=2: the server processes are starting.
        if (workers === '1') await new Promise((r) => setTimeout(r, 700));
        else
          await waitFor(
            'a server process',
            () => descendants(server.child.pid!).some((d) => d.args.includes('src/server.ts')),
            30_000,
          );
        assert.equal(ready, false, 'not serving yet');
        await server.stop();
      });
    }
  });
}

describe('the watchdog', () => {
  /** A process that arms the watchdog, then does `then` (a script body). */
  const run = (then: string) =>
    spawn(
      process.execPath,
      [
        ...TS_NODE_ARGS,
        '--input-type=module',
        '-e',
        `const { armWatchdog } = await import(${JSON.stringify(new URL('../src/shared/stop.ts', import.meta.url).href)});
armWatchdog(1500);
${then}`,
      ],
      { stdio: 'ignore' },
    );

  it('kills a process whose main thread is blocked for good (as in an exit joining a thread that does not stop)', async () => {
    const child = run('Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);');
    const started = Date.now();
    const { signal } = await new Promise<{ signal: string | null }>((resolve) =>
      child.once('exit', (_code, signal) => resolve({ signal })),
    );
    const ms = Date.now() - started;
    assert.equal(signal, 'SIGKILL');
    assert.ok(ms >= 1500 && ms < 1500 + MARGIN_MS + 2000, `${ms} ms`);
  });

  it('leaves a process that exits by itself alone, and goes with it', async () => {
    const child = run('setTimeout(() => process.exit(3), 1000);');
    const watchdog = () =>
      execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
        .split('\n')
        .filter((l) => l.includes('process.kill(pid') && l.trimEnd().endsWith(` ${child.pid} 1500`))
        .map((l) => Number(l.trim().split(/\s+/)[0]));
    let pids: number[] = [];
    await waitFor(
      'the watchdog',
      () => {
        pids = watchdog();
        return pids.length === 1;
      },
      5000,
    );
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    assert.equal(code, 3, 'exited by itself, not killed');
    await waitFor('the watchdog to end with it', () => !alive(pids[0]!), 3000);
  });
});
