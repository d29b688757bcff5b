import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { buildApp } from '../src/app.js';
import { createDb, type DbHandle } from '../src/db/index.js';
import { sqliteOf } from '../src/db/prepared.js';
import { seedDemoIfEmpty } from '../src/import/demo.js';
import { createIntegration } from '../src/modules/integration/integration.service.js';
import { pageCacheRoutes } from '../src/plugins/page-cache.js';
import { ALL_SCOPES } from '../src/shared/scopes.js';
import { testConfig } from './helpers.js';

/**
 * A cached route names every table its answer reads (plugins/page-cache.ts): a table read but
 * not named would let a kept page outlive a change to it. Every statement run between the end
 * of authentication and the answer is recorded (better-sqlite3's statements), for each cached
 * route, over the demo data, plain and with each of its query parameters; every table they
 * name must be declared, or be one kept in step by the triggers of a declared one.
 */
/** Tables written only by the triggers of the tables they index or count. */
const DERIVED = (t: string) => t === 'list_counts' || /fts|search/.test(t);
/** The route's URL plain, then with each query parameter set to a value of its type. */
function variants(r: RouteOptions): string[] {
  const base = r.url.replace(/:\w+/g, '1');
  const props = ((r.schema?.querystring as { properties?: Record<string, any> })?.properties ?? {}) as Record<
    string,
    any
  >;
  const out = [base];
  for (const [name, p] of Object.entries(props)) {
    const values: string[] = [];
    const t = p.anyOf ? p.anyOf[0] : p;
    if (t.enum) values.push(...t.enum.map(String));
    else if (t.const !== undefined) values.push(String(t.const));
    else if (t.type === 'boolean') values.push('true', 'false');
    else if (t.type === 'integer' || t.type === 'number') values.push('1');
    else if (t.format === 'date') values.push('2026-01-01');
    else values.push('a');
    for (const v of values) out.push(`${base}?${name}=${encodeURIComponent(v)}`);
  }
  return out;
}

describe('page cache: the tables a cached route reads', () => {
  let handle: DbHandle;
  let app: FastifyInstance;
  let token: string;
  const cached: RouteOptions[] = [];
  const seen: string[] = [];
  let tracing = false;

  before(async () => {
    handle = createDb({ kind: 'sqlite', file: ':memory:' });
    const { migrateToLatest } = await import('../src/db/migrator.js');
    await migrateToLatest(handle.db);
    const accountId = (await seedDemoIfEmpty(handle.db, () => {}))!;
    token = (await createIntegration(handle.db, { name: 't', scopes: [...ALL_SCOPES], accountId }))
      .access_token;
    const sqlite = sqliteOf(handle.db)!;
    const proto = Object.getPrototypeOf(sqlite.prepare('select 1'));
    for (const m of ['all', 'get', 'run', 'iterate']) {
      const orig = proto[m];
      proto[m] = function (this: { source: string }, ...args: unknown[]) {
        if (tracing) seen.push(this.source);
        return orig.apply(this, args);
      };
    }
    app = await buildApp(testConfig({ pageCacheMb: 0 } as never), { db: handle, logger: false });
    app.addHook('preHandler', (_req, _reply, done) => {
      tracing = true;
      done();
    });
    app.addHook('onSend', (_req, _reply, payload, done) => {
      tracing = false;
      done(null, payload);
    });
    await app.ready();
    cached.push(...pageCacheRoutes(app));
  });
  after(async () => {
    await app.close();
    await handle.destroy();
  });

  it('every table a cached route reads is declared, and has a version', async () => {
    const sqlite = sqliteOf(handle.db)!;
    const tables = (
      sqlite.prepare("select name from sqlite_master where type = 'table'").pluck().all() as string[]
    ).filter((t) => !t.startsWith('sqlite_'));
    const versioned = new Set(sqlite.prepare('select name from table_versions').pluck().all() as string[]);
    const undeclared: string[] = [];
    for (const r of cached) {
      const used = new Set<string>();
      for (const url of variants(r)) {
        seen.length = 0;
        const res = await app.inject({ url, headers: { authorization: `Bearer ${token}` } });
        for (const s of seen)
          for (const t of tables) if (new RegExp(`"${t}"|\\b${t}\\b`).test(s)) used.add(t);
        assert.ok(res.statusCode < 500, `${url}: ${res.statusCode}`);
      }
      assert.ok(used.size > 0, `${r.url}: no statement recorded`);
      const declared = r.config!.pageCache!;
      for (const t of used) if (!declared.includes(t) && !DERIVED(t)) undeclared.push(`${r.url} reads ${t}`);
      for (const t of declared) assert.ok(versioned.has(t), `${r.url}: no trigger keeps a version of ${t}`);
    }
    assert.ok(cached.length >= 15, `cached routes found: ${cached.length}`);
    assert.deepEqual(undeclared, []);
  });
});
