import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDb, expectProblem } from './helpers.js';

describeEachDb(
  'rate limiting',
  (ctx) => {
    it('answers 429 problem+json with Retry-After and RateLimit headers past the budget, per integration', async () => {
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
  },
  { config: { rateLimitPerMinute: 3 } },
);
