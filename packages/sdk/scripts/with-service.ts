// Runs a command against a freshly started service, the way an integrator meets it: the
// service is started with `npm start` on a free port, on a new SQLite file or (with
// SDK_DATABASE=postgres) a new database on TEST_DATABASE_URL's server, with the demo data; an
// integration with every scope is made with the CLI. The command gets API_URL and API_TOKEN.
//
//   tsx scripts/with-service.ts -- node --import tsx --test test/*.test.ts
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ALL_SCOPES } from '../../../src/shared/scopes.js';

const root = new URL('../../../', import.meta.url).pathname;
const command = process.argv.slice(process.argv.indexOf('--') + 1);
if (!process.argv.includes('--') || command.length === 0) {
  console.error('usage: tsx scripts/with-service.ts -- COMMAND [ARGS…]');
  process.exit(2);
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });

async function admin(sql: string) {
  const c = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

const cleanups: (() => Promise<void> | void)[] = [];
let databaseUrl: string;
if (process.env.SDK_DATABASE === 'postgres') {
  if (!process.env.TEST_DATABASE_URL) throw new Error('SDK_DATABASE=postgres needs TEST_DATABASE_URL');
  const name = `sdk_${randomBytes(5).toString('hex')}`;
  await admin(`create database ${name}`);
  const url = new URL(process.env.TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  databaseUrl = url.toString();
  cleanups.push(() => admin(`drop database if exists ${name} with (force)`));
} else {
  const dir = mkdtempSync(join(tmpdir(), 'sdk-'));
  databaseUrl = `file:${join(dir, 'service.db')}`;
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
}

const port = await freePort();
const env = {
  ...process.env,
  DATABASE_URL: databaseUrl,
  PORT: String(port),
  HOST: '127.0.0.1',
  PUBLIC_URL: `http://127.0.0.1:${port}`,
  SEED_DEMO: 'true',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  LOG_LEVEL: 'warn',
  SECRET_KEY: process.env.SECRET_KEY ?? randomBytes(32).toString('base64url'),
};
const server = spawn('node', ['--import', 'tsx', 'src/server.ts'], {
  cwd: root,
  env,
  stdio: ['ignore', 'inherit', 'pipe'],
});
let serverLog = '';
server.stderr.on('data', (chunk) => {
  serverLog += chunk;
});
cleanups.unshift(
  () =>
    new Promise<void>((resolve) => {
      if (server.exitCode !== null) return resolve();
      server.once('exit', () => resolve());
      server.kill('SIGTERM');
    }),
);

let code = 1;
try {
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (server.exitCode !== null) throw new Error(`the service exited: ${serverLog}`);
    const ready = await fetch(`${base}/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (i > 240) throw new Error(`the service did not get ready in 60 s: ${serverLog}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const created = JSON.parse(
    execFileSync(
      'node',
      [
        '--import',
        'tsx',
        'src/cli/index.ts',
        'integration',
        'create',
        '--name',
        'sdk',
        '--scopes',
        ALL_SCOPES.join(' '),
        '--json',
      ],
      { cwd: root, env, encoding: 'utf8' },
    ),
  ) as { access_token: string };
  console.log(`service on ${base} (${process.env.SDK_DATABASE === 'postgres' ? 'PostgreSQL' : 'SQLite'})`);
  const child = spawn(command[0]!, command.slice(1), {
    stdio: 'inherit',
    env: { ...process.env, API_URL: base, API_TOKEN: created.access_token },
  });
  code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
} finally {
  for (const cleanup of cleanups) await cleanup();
}
process.exit(code);
