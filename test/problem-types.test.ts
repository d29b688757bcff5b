// A problem document's `type` points at a page this service serves, for every code of the
// registry; the answers and the OpenAPI document's examples use those paths.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { problemType } from '../src/plugins/problem-types.js';
import { ERROR_CODES, type ErrorCode } from '../src/shared/errors.js';
import { describeEachDb, expectProblem } from './helpers.js';

const CODES = Object.keys(ERROR_CODES) as ErrorCode[];
type Typed = { type?: string; code: string };

describeEachDb('problem types', (ctx) => {
  it('every code’s type is a page of this service (200, HTML, its code, status and title)', async () => {
    for (const code of CODES) {
      const type = problemType(code);
      assert.match(type, /^\/problems\/[a-z0-9-]+$/, code);
      const res = await ctx.app.inject({ url: type });
      assert.equal(res.statusCode, 200, `${code}: ${type}`);
      assert.match(String(res.headers['content-type']), /^text\/html; charset=utf-8/);
      assert.ok(res.body.includes(`<code>${code}</code>`), code);
      assert.ok(res.body.includes(`HTTP status ${ERROR_CODES[code].status} `), code);
      const title = ERROR_CODES[code].title.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
      assert.ok(res.body.includes(title), code);
    }
  });

  it('GET /problems links every code; an unknown one is a 404 problem', async () => {
    const index = await ctx.app.inject({ url: '/problems' });
    assert.equal(index.statusCode, 200);
    for (const code of CODES) assert.ok(index.body.includes(`href="${problemType(code)}"`), code);
    const unknown = await ctx.app.inject({ url: '/problems/no-such-thing' });
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().type, '/problems/not-found');
  });

  it('an answer’s type resolves against its request URL to the page of its code', async () => {
    const api = await ctx.as(['client:read']);
    const problem = expectProblem(await api.get('/clients/999999999'), 404, 'not_found') as Typed;
    const url = new URL(problem.type!, 'http://127.0.0.1:3000/api/v1/clients/999999999');
    assert.equal(url.pathname, '/problems/not-found');
    assert.equal((await ctx.app.inject({ url: url.pathname })).statusCode, 200);
    const noToken = expectProblem(await ctx.anon.get('/clients'), 401) as Typed;
    assert.equal(noToken.type, problemType(noToken.code as ErrorCode));
  });

  it('the OpenAPI document’s problem examples use the same served paths', async () => {
    const doc = JSON.stringify((await ctx.anon.get('/openapi.json')).body);
    const types = new Set([...doc.matchAll(/"type":"(\/problems\/[^"]*)"/g)].map((m) => m[1]!));
    assert.ok(types.size > 5, [...types].join(' '));
    for (const type of types) assert.equal((await ctx.app.inject({ url: type })).statusCode, 200, type);
    assert.doesNotMatch(doc, /"type":"https?:/);
  });
});
