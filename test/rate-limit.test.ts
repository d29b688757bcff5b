import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { rateLimitClock } from '../src/plugins/rate-limit.js';
import { SharedWindowStore } from '../src/plugins/rate-limit.store.js';
import { Api, countRows, describeEachDb, expectProblem, testConfig } from './helpers.js';

// The budgets' clock stands still while a test counts, and each test starts a window of its
// own by moving it on: no test waits for the wall clock or is cut by a window ending.
let now = Date.now();
const nextWindow = (): void => {
  now = now - (now % 60_000) + 60_000;
};

describeEachDb(
  'rate limiting',
  (ctx) => {
    const others: FastifyInstance[] = [];
    // A second server process on the same database: its own memory, the same rows.
    async function secondProcess(rateLimitPerMinute: number) {
      const app = await buildApp(testConfig({ rateLimitPerMinute }), { db: ctx.handle, logger: false });
      others.push(app);
      return app;
    }
    before(() => {
      rateLimitClock.now = () => now;
    });
    after(async () => {
      rateLimitClock.now = () => Date.now();
      for (const app of others) await app.close();
    });

    it('answers 429 problem+json with Retry-After and RateLimit headers past the budget, per integration', async () => {
      nextWindow();
      const api = await ctx.as([]);
      const first = await api.get('/whoami');
      assert.equal(first.headers['ratelimit-policy'], '"default";q=3;w=60');
      assert.match(String(first.headers.ratelimit), /^"default";r=2;t=\d+$/);
      await api.get('/whoami');
      await api.get('/whoami');
      const limited = await api.get('/whoami');
      expectProblem(limited, 429, 'rate_limited');
      assert.ok(Number(limited.headers['retry-after']) > 0);
      const another = await ctx.as([]);
      assert.equal((await another.get('/whoami')).status, 200);
      const docs = await ctx.app.inject({ url: '/api/v1/openapi.json' });
      assert.equal(docs.statusCode, 200);
    });

    it('gives a spent budget back when the next window starts, and says when that is', async () => {
      nextWindow();
      now += 45_000; // 15 s of the window left
      const api = await ctx.as([]);
      for (let i = 0; i < 3; i++) assert.equal((await api.get('/whoami')).status, 200);
      const limited = await api.get('/whoami');
      expectProblem(limited, 429, 'rate_limited');
      assert.equal(limited.headers['retry-after'], '15');
      nextWindow();
      const again = await api.get('/whoami');
      assert.equal(again.status, 200);
      assert.equal(again.headers.ratelimit, '"default";r=2;t=60');
    });

    it('shares one budget between processes serving the same database', async () => {
      nextWindow();
      const one = await ctx.as([]);
      const two = new Api(await secondProcess(3), one.token);
      assert.equal((await one.get('/whoami')).status, 200);
      const second = await two.get('/whoami');
      assert.equal(second.status, 200);
      assert.match(String(second.headers.ratelimit), /^"default";r=1;/);
      assert.equal((await one.get('/whoami')).status, 200);
      expectProblem(await two.get('/whoami'), 429, 'rate_limited');
      expectProblem(await one.get('/whoami'), 429, 'rate_limited');
    });

    it('admits exactly the budget when processes take leases of it', async () => {
      nextWindow();
      // 200 a minute: each process takes 2 requests at a time from the shared window.
      const a = new Api(await secondProcess(200), (await ctx.as([])).token);
      const b = new Api(await secondProcess(200), a.token);
      let admitted = 0;
      for (let i = 0; i < 210; i++) {
        const res = await (i % 3 === 0 ? a : b).get('/whoami');
        if (res.status === 200) admitted++;
        else expectProblem(res, 429, 'rate_limited');
      }
      assert.equal(admitted, 200);
      assert.ok((await countRows(ctx.db, 'rate_limit_windows')) >= 1);
    });

    /** `n` requests from `clients` parallel clients, each waiting for its answer before the next. */
    async function parallel(
      clients: number,
      n: number,
      send: (i: number) => Promise<{ statusCode: number }>,
    ) {
      const statuses: number[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: clients }, async () => {
          while (next < n) statuses.push((await send(next++)).statusCode);
        }),
      );
      return statuses;
    }
    const whoami = (app: FastifyInstance, token: string) => () =>
      app.inject({ url: '/api/v1/whoami', headers: { authorization: `Bearer ${token}` } });

    it('admits the whole budget to 16 parallel clients, and not one request more', async () => {
      nextWindow();
      const app = await secondProcess(200);
      const statuses = await parallel(16, 260, whoami(app, (await ctx.as([])).token!));
      assert.equal(statuses.filter((s) => s === 200).length, 200);
      assert.equal(statuses.filter((s) => s === 429).length, 60);
    });

    it('two processes under parallel load never admit more than the budget in all', async () => {
      nextWindow();
      const token = (await ctx.as([])).token!;
      const [a, b] = [await secondProcess(200), await secondProcess(200)];
      const statuses = await parallel(16, 300, (i) => whoami(i % 2 ? a : b, token)());
      const admitted = statuses.filter((s) => s === 200).length;
      // Each process may end holding the rest of a lease (2 requests here) it had no use for.
      assert.ok(admitted <= 200 && admitted >= 198, `admitted ${admitted}`);
      assert.equal(statuses.filter((s) => s !== 200 && s !== 429).length, 0);
    });

    it('limits requests without a token or with a bad one per client address (401, then 429)', async () => {
      nextWindow();
      const from = (remoteAddress: string, authorization?: string) =>
        ctx.app.inject({
          url: '/api/v1/whoami',
          remoteAddress,
          headers: authorization ? { authorization } : {},
        });
      const first = await from('192.0.2.1');
      expectProblem(
        { status: first.statusCode, headers: first.headers, body: first.json(), text: first.body },
        401,
      );
      assert.match(String(first.headers.ratelimit), /^"default";r=2;t=\d+$/);
      assert.equal((await from('192.0.2.1', 'Bearer not-a-token')).statusCode, 401);
      assert.equal((await from('192.0.2.1', 'Basic Zm9vOmJhcg==')).statusCode, 401);
      const limited = await from('192.0.2.1', 'Bearer another-guess');
      expectProblem(
        { status: limited.statusCode, headers: limited.headers, body: limited.json(), text: limited.body },
        429,
        'rate_limited',
      );
      assert.ok(Number(limited.headers['retry-after']) > 0);
      // Another address has a budget of its own, and so has a valid token from this one.
      assert.equal((await from('192.0.2.2')).statusCode, 401);
      const valid = (await ctx.as([])).token!;
      assert.equal((await from('192.0.2.1', `Bearer ${valid}`)).statusCode, 200);
    });

    it('limits the OAuth endpoints per client address too: the token endpoint answers, then 429', async () => {
      nextWindow();
      const token = () =>
        ctx.app.inject({
          method: 'POST',
          url: '/oauth/token',
          remoteAddress: '192.0.2.30',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            authorization: `Basic ${Buffer.from('no-such-client:guess').toString('base64')}`,
          },
          payload: 'grant_type=client_credentials',
        });
      const first = await token();
      // oidc-provider's own answer (RFC 6749), with the budget's headers.
      assert.equal(first.statusCode, 401);
      assert.equal(first.json().error, 'invalid_client');
      assert.equal(first.headers['ratelimit-policy'], '"default";q=3;w=60');
      assert.match(String(first.headers.ratelimit), /^"default";r=2;t=\d+$/);
      const meta = await ctx.app.inject({
        url: '/.well-known/oauth-authorization-server',
        remoteAddress: '192.0.2.30',
      });
      assert.equal(meta.statusCode, 200);
      assert.equal((await token()).statusCode, 401);
      const limited = await token();
      expectProblem(
        { status: limited.statusCode, headers: limited.headers, body: limited.json(), text: limited.body },
        429,
        'rate_limited',
      );
      assert.ok(Number(limited.headers['retry-after']) > 0);
      // Another address, and the API from this one for a valid token, have budgets of their own.
      const elsewhere = await ctx.app.inject({
        url: '/.well-known/oauth-authorization-server',
        remoteAddress: '192.0.2.31',
      });
      assert.equal(elsewhere.statusCode, 200);
      const api = await ctx.as([]);
      assert.equal((await api.get('/whoami')).status, 200);
    });

    it('counts a token that lacks the scope against its integration (403, then 429)', async () => {
      nextWindow();
      const api = await ctx.as([]);
      for (let i = 0; i < 3; i++) expectProblem(await api.get('/tasks'), 403, 'insufficient_scope');
      expectProblem(await api.get('/tasks'), 429, 'rate_limited');
    });

    it('store: a window of its own clock, leases in flight shared by waiters, several stores one budget', async () => {
      let clock = 7 * 60_000; // a window start far in the past: rows of its own
      const log = ctx.app.log;
      const [one, two] = [
        new SharedWindowStore(ctx.db, log, 10_000, () => clock),
        new SharedWindowStore(ctx.db, log, 10_000, () => clock),
      ];
      const take = (store: SharedWindowStore) =>
        new Promise<number>((resolve, reject) =>
          store.take('test:clock', 60_000, 100, (err, taken) =>
            err ? reject(err) : resolve(taken!.current),
          ),
        );
      // 150 requests at once, three fifths on one store: 100 admitted, each counted once.
      const counts = await Promise.all(Array.from({ length: 150 }, (_, i) => take(i % 5 < 3 ? one : two)));
      const admitted = counts.filter((c) => c <= 100);
      assert.ok(admitted.length <= 100 && admitted.length >= 99, `admitted ${admitted.length}`);
      // The next window, without waiting a minute for it.
      clock += 60_000;
      assert.equal(await take(one), 1);
    });

    it('limits 3,000 requests without a token from one address to the budget', async () => {
      nextWindow();
      const app = await secondProcess(1200);
      const statuses = await parallel(16, 3000, () =>
        app.inject({ url: '/api/v1/clients', remoteAddress: '192.0.2.9' }),
      );
      assert.equal(statuses.filter((s) => s === 401).length, 1200);
      assert.equal(statuses.filter((s) => s === 429).length, 1800);
    });
  },
  { config: { rateLimitPerMinute: 3 } },
);
