import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { type Api, createAccount, createTestDb, describeEachDb, testConfig } from './helpers.js';

const APP = 'https://app.example';

const preflight = (app: FastifyInstance, origin: string, url = '/api/v1/clients') =>
  app.inject({
    method: 'OPTIONS',
    url,
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type, idempotency-key',
    },
  });

describeEachDb(
  'CORS with CORS_ORIGINS',
  (ctx) => {
    let api: Api;
    before(async () => {
      api = await ctx.as('client:read client:write');
    });

    it('answers the preflight of an allowed origin before authentication: methods, headers, max age', async () => {
      const res = await preflight(ctx.app, APP);
      assert.equal(res.statusCode, 204);
      assert.equal(res.headers['access-control-allow-origin'], APP);
      assert.match(String(res.headers.vary), /Origin/);
      assert.match(String(res.headers['access-control-allow-methods']), /POST/);
      assert.match(String(res.headers['access-control-allow-methods']), /PATCH/);
      const allowHeaders = String(res.headers['access-control-allow-headers']).toLowerCase();
      for (const h of ['authorization', 'content-type', 'idempotency-key'])
        assert.ok(allowHeaders.includes(h), h);
      assert.equal(res.headers['access-control-allow-credentials'], undefined);
      // The OAuth token endpoint too: apps in a browser exchange their code there (PKCE).
      assert.equal((await preflight(ctx.app, APP, '/oauth/token')).statusCode, 204);
    });

    it('an allowed origin’s requests expose Link, Location, RateLimit and Retry-After, errors too', async () => {
      const created = await api.post('/clients', { name: 'Browser GmbH' }, { origin: APP });
      assert.equal(created.status, 201);
      assert.equal(created.headers['access-control-allow-origin'], APP);
      const expose = String(created.headers['access-control-expose-headers']);
      for (const h of ['Link', 'Location', 'RateLimit', 'RateLimit-Policy', 'Retry-After'])
        assert.ok(expose.split(', ').includes(h), h);
      const denied = await ctx.anon.get('/clients', { origin: APP });
      assert.equal(denied.status, 401);
      assert.equal(denied.headers['access-control-allow-origin'], APP, 'a browser app may read why');
    });

    it('other origins, and requests without one, get no CORS headers', async () => {
      const res = await preflight(ctx.app, 'https://evil.example');
      assert.equal(res.headers['access-control-allow-origin'], undefined);
      assert.equal(res.headers['access-control-allow-methods'], undefined);
      assert.notEqual(res.statusCode, 204);
      const get = await api.get('/clients', { origin: 'https://evil.example' });
      assert.equal(get.status, 200);
      assert.equal(get.headers['access-control-allow-origin'], undefined);
      assert.equal((await api.get('/clients')).headers['access-control-allow-origin'], undefined);
      // Not the browser pages of the service itself.
      const page = await ctx.app.inject({ method: 'GET', url: '/signin', headers: { origin: APP } });
      assert.equal(page.headers['access-control-allow-origin'], undefined);
    });
  },
  { config: { corsOrigins: [APP, 'http://localhost:5173'] } },
);

describe('CORS by default and configuration', () => {
  let app: FastifyInstance;
  let handle: Awaited<ReturnType<typeof createTestDb>>;
  before(async () => {
    handle = await createTestDb('sqlite');
    app = await buildApp(testConfig(), { db: handle, logger: false });
    await createAccount(handle.db);
  });
  after(async () => {
    await app.close();
    await handle.destroy();
  });

  it('allows no origin unless configured', async () => {
    const res = await preflight(app, APP);
    assert.equal(res.headers['access-control-allow-origin'], undefined);
    assert.notEqual(res.statusCode, 204);
  });

  it('CORS_ORIGINS: a comma list of origins or *, anything else a start-up error naming it', () => {
    assert.deepEqual(loadConfig({ CORS_ORIGINS: ' https://a.example, http://localhost:5173 ' }).corsOrigins, [
      'https://a.example',
      'http://localhost:5173',
    ]);
    assert.deepEqual(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins, ['*']);
    assert.deepEqual(loadConfig({}).corsOrigins, []);
    assert.throws(() => loadConfig({ CORS_ORIGINS: 'https://a.example/path' }), /CORS_ORIGINS/);
    assert.throws(() => loadConfig({ CORS_ORIGINS: 'ftp://a.example' }), /CORS_ORIGINS/);
  });

  it('* allows any origin without credentials', async () => {
    const h = await createTestDb('sqlite');
    const any = await buildApp(testConfig({ corsOrigins: ['*'] }), { db: h, logger: false });
    try {
      const res = await preflight(any, 'https://whoever.example');
      assert.equal(res.statusCode, 204);
      assert.equal(res.headers['access-control-allow-origin'], '*');
    } finally {
      await any.close();
      await h.destroy();
    }
  });
});
