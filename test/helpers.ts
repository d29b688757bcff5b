import { randomBytes } from 'node:crypto';
import { subscribe } from 'node:diagnostics_channel';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import type { FastifyInstance, InjectOptions } from 'fastify';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { type Config, loadConfig } from '../src/config.js';
import { createDb, type DbHandle, type DbKind } from '../src/db/index.js';
import { importData } from '../src/import/index.js';
import { createIntegration } from '../src/modules/integration/integration.service.js';

export const PG_URL = process.env.TEST_DATABASE_URL;

/**
 * The OpenAPI coverage collector: with OPENAPI_COVERAGE_DIR set (`npm test` sets it), every
 * Fastify app this process builds records each answer's method, route pattern, status and
 * problem `code`, written to a file of this process at exit. scripts/openapi-coverage.ts then
 * fails the run when the document does not declare one of them. Fastify announces each new
 * instance on this diagnostics channel, so apps built without these helpers are seen too.
 */
const COVERAGE_DIR = process.env.OPENAPI_COVERAGE_DIR;
if (COVERAGE_DIR) {
  const seen = new Set<string>();
  subscribe('fastify.initialization', (message) => {
    const app = (message as { fastify: FastifyInstance }).fastify;
    app.addHook('onSend', async (req, reply, payload) => {
      const url = req.routeOptions.url;
      if (url === undefined || req.method === 'HEAD' || req.method === 'OPTIONS') return payload;
      let code = '';
      if (typeof payload === 'string' && String(reply.getHeader('content-type')).includes('problem+json')) {
        code = /"code":"([a-z_]+)"/.exec(payload)?.[1] ?? '';
      }
      seen.add(JSON.stringify([req.method, url, reply.statusCode, code]));
      return payload;
    });
  });
  process.on('exit', () => {
    if (seen.size === 0) return;
    mkdirSync(COVERAGE_DIR, { recursive: true });
    const lines = [...seen].join('\n');
    writeFileSync(join(COVERAGE_DIR, `${process.pid}-${randomBytes(4).toString('hex')}.jsonl`), `${lines}\n`);
  });
}

/** SQLite always; PostgreSQL too when TEST_DATABASE_URL is set (CI sets it). */
export const DB_KINDS: DbKind[] = PG_URL ? ['sqlite', 'postgres'] : ['sqlite'];

/** The URL of another database on the test PostgreSQL server. */
export function pgUrlFor(database: string): string {
  const url = new URL(PG_URL!);
  url.pathname = `/${database}`;
  return url.toString();
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

const urls = new WeakMap<object, string>();

/**
 * Another connection (pool) to a test database, as another process has: PostgreSQL, or SQLite
 * made with a file. The caller destroys it, before the database.
 */
export function connectAgain(handle: DbHandle): DbHandle {
  const url = urls.get(handle.db);
  if (!url) throw new Error('connectAgain: an in-memory SQLite database has no other connection');
  return handle.kind === 'sqlite'
    ? createDb({ kind: 'sqlite', file: url })
    : createDb({ kind: 'postgres', url });
}

/** The URL of a test database made with createTestDb (a file or PostgreSQL), for another process. */
export function urlOf(handle: DbHandle): string {
  const url = urls.get(handle.db);
  if (!url) throw new Error('urlOf: an in-memory SQLite database has no URL');
  return url;
}

/**
 * A fresh, migrated database: in-memory SQLite, or a PostgreSQL database of its own so that
 * test files running in parallel never see each other's rows. (Not a schema each: Kysely's
 * migrator introspects every schema of a database, and trips over tables that another test
 * file is creating or dropping at that moment.)
 */
export async function createTestDb(kind: DbKind, sqliteFile = ':memory:'): Promise<DbHandle> {
  if (kind === 'sqlite') {
    const handle = createDb({ kind: 'sqlite', file: sqliteFile });
    if (sqliteFile !== ':memory:') urls.set(handle.db, sqliteFile);
    return handle;
  }
  const name = `t_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`create database ${name}`));
  const handle = createDb({ kind: 'postgres', url: pgUrlFor(name) });
  urls.set(handle.db, pgUrlFor(name));
  return {
    ...handle,
    async destroy() {
      await handle.destroy();
      // The pool's sockets may take a moment to close after it ended: wait for them rather
      // than force, which would kill them with an error nobody listens to any more.
      await admin(async (c) => {
        for (let attempt = 0; ; attempt++) {
          try {
            await c.query(`drop database if exists ${name}`);
            return;
          } catch (err) {
            if ((err as { code?: string }).code !== '55006' || attempt >= 50) throw err;
            await new Promise((r) => setTimeout(r, 100));
          }
        }
      });
    },
  };
}

export function testConfig(overrides: Partial<Config> = {}): Config {
  return loadConfig(
    { WEBHOOK_ALLOW_PRIVATE: 'true', RUN_WORKER: 'false', LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '0' },
    overrides,
  );
}

export interface TestAccount {
  accountId: number;
  /** Users by import key: admin, member. */
  users: { admin: number; member: number };
}

let accountSeq = 0;

/** A new account with an admin and a member user, made through the import. */
/** Account settings of a seller with everything an invoice (and an XRechnung) needs. */
export const COMPLETE_SELLER = {
  street: 'Teststraße 1',
  zip: '10115',
  city: 'Berlin',
  vat_id: 'DE123456789',
  tax_number: '30/123/45678',
  contact_name: 'Ada Admin',
  phone: '+49 30 1234567',
  email: 'billing@seller.example',
  iban: 'DE02120300000000202051',
  bic: 'BYLADEM1001',
  service_date_defaults_to_invoice_date: true,
};

export async function createAccount(
  db: DbHandle['db'],
  extra: Record<string, unknown> = {},
): Promise<TestAccount> {
  const n = ++accountSeq;
  const result = await importData(db, {
    // A seller that may issue legally complete invoices (§14 UStG: address, VAT id, supply date).
    account: { name: `Test account ${n}`, country_code: 'DE', settings: COMPLETE_SELLER },
    users: [
      { key: 'admin', email: `admin${n}@test.example`, first_name: 'Ada', last_name: 'Admin', role: 'admin' },
      { key: 'member', email: `member${n}@test.example`, first_name: 'Max', last_name: 'Member' },
    ],
    ...extra,
  });
  const users = await db
    .selectFrom('users')
    .select(['id', 'role'])
    .where('account_id', '=', result.account_id)
    .orderBy('id')
    .execute();
  return {
    accountId: result.account_id,
    users: {
      admin: users.find((u) => u.role === 'admin')!.id,
      member: users.find((u) => u.role !== 'admin')!.id,
    },
  };
}

export interface Response<T = any> {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: T;
  text: string;
}

/** A client for the API as one integration sees it. Paths are relative to /api/v1. */
export class Api {
  constructor(
    readonly app: FastifyInstance,
    readonly token?: string,
  ) {}

  async request<T = any>(
    method: InjectOptions['method'],
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Response<T>> {
    const res = await this.app.inject({
      method,
      url: path.startsWith('/api/') || path.startsWith('/docs') ? path : `/api/v1${path}`,
      headers: { ...(this.token ? { authorization: `Bearer ${this.token}` } : {}), ...headers },
      ...(body === undefined
        ? {}
        : typeof body === 'string' || Buffer.isBuffer(body)
          ? { payload: body }
          : { payload: body as object }),
    });
    let parsed: unknown = res.body;
    if (/json/.test(String(res.headers['content-type'] ?? ''))) parsed = JSON.parse(res.body);
    return { status: res.statusCode, headers: res.headers, body: parsed as T, text: res.body };
  }

  get = <T = any>(path: string, headers?: Record<string, string>) =>
    this.request<T>('GET', path, undefined, headers);
  post = <T = any>(path: string, body?: unknown, headers?: Record<string, string>) =>
    this.request<T>('POST', path, body ?? {}, headers);
  patch = <T = any>(path: string, body?: unknown, headers?: Record<string, string>) =>
    this.request<T>('PATCH', path, body ?? {}, headers);
  put = <T = any>(path: string, body?: unknown, headers?: Record<string, string>) =>
    this.request<T>('PUT', path, body ?? {}, headers);
  delete = <T = any>(path: string, headers?: Record<string, string>) =>
    this.request<T>('DELETE', path, undefined, headers);
}

export interface TestContext {
  kind: DbKind;
  app: FastifyInstance;
  handle: DbHandle;
  db: DbHandle['db'];
  /** The main account of the test, and a second one to prove tenant isolation. */
  account: TestAccount;
  other: TestAccount;
  /** An API client whose token holds exactly `scopes` (as the account's admin unless `userId`). */
  as(scopes: string[] | string, opts?: { userId?: number; accountId?: number }): Promise<Api>;
  /** No token at all. */
  anon: Api;
}

/**
 * Runs `fn` once per database kind, each with its own app and database. Inside, use
 * `ctx.as([...scopes])` to get a client holding exactly those scopes.
 */
export function describeEachDb(
  name: string,
  fn: (ctx: TestContext) => void,
  options: { config?: Partial<Config> } = {},
) {
  for (const kind of DB_KINDS) {
    describe(`${name} [${kind}]`, () => {
      const ctx = { kind } as TestContext;
      before(async () => {
        ctx.handle = await createTestDb(kind);
        ctx.db = ctx.handle.db;
        ctx.app = await buildApp(testConfig(options.config), { db: ctx.handle, logger: false });
        await ctx.app.ready();
        ctx.account = await createAccount(ctx.db);
        ctx.other = await createAccount(ctx.db);
        ctx.anon = new Api(ctx.app);
        ctx.as = async (scopes, opts = {}) => {
          const list = typeof scopes === 'string' ? scopes.split(/\s+/).filter(Boolean) : scopes;
          const created = await createIntegration(ctx.db, {
            name: 'test',
            scopes: list,
            userId:
              opts.userId ??
              (opts.accountId === ctx.other.accountId ? ctx.other.users.admin : ctx.account.users.admin),
          });
          return new Api(ctx.app, created.access_token);
        };
      });
      fn(ctx);
      // Registered after the suite's own hooks so that those (closing extra pools, receivers)
      // run first: the database is dropped last.
      after(async () => {
        await ctx.app?.close();
        await ctx.handle?.destroy();
      });
    });
  }
}

/** Asserts a problem+json answer and returns its body. */
export function expectProblem(res: Response, status: number, code?: string) {
  const ok =
    res.status === status &&
    String(res.headers['content-type']).startsWith('application/problem+json') &&
    (code === undefined || res.body?.code === code);
  if (!ok) {
    throw new Error(
      `expected problem ${status}${code ? ` ${code}` : ''}, got ${res.status} ${res.text.slice(0, 500)}`,
    );
  }
  return res.body as {
    code: string;
    detail: string;
    errors?: { field: string; message: string }[];
    required_scopes?: string[];
  };
}

/** Count of rows in a table, for asserting that a refused request changed nothing. */
export async function countRows(db: DbHandle['db'], table: string): Promise<number> {
  const row = await (db as any)
    .selectFrom(table)
    .select((eb: any) => eb.fn.countAll().as('n'))
    .executeTakeFirst();
  return Number(row.n);
}

/**
 * Encodes a multipart/form-data body (file in the part named `file` by default) for
 * `api.request('POST', path, body, headers)`.
 */
export async function multipart(
  file: { name: string; type: string; data: Buffer | string; field?: string } | null,
  fields: Record<string, string> = {},
): Promise<{ body: Buffer; headers: Record<string, string> }> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  if (file) form.append(file.field ?? 'file', new Blob([file.data], { type: file.type }), file.name);
  const res = new Response(form);
  return {
    body: Buffer.from(await res.arrayBuffer()),
    headers: { 'content-type': res.headers.get('content-type')! },
  };
}
