import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { Api, countRows, describeEachDb, expectProblem, freshWindow, testConfig } from './helpers.js';

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
    after(async () => {
      for (const app of others) await app.close();
    });

    it('answers 429 problem+json with Retry-After and RateLimit headers past the budget, per integration', async () => {
      await freshWindow();
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

    it('shares one budget between processes serving the same database', async () => {
      await freshWindow();
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
      await freshWindow();
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
  },
  { config: { rateLimitPerMinute: 3 } },
);
