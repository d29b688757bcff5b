import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createIntegration, revokeIntegration } from '../src/modules/integration/integration.service.js';
import { hashToken } from '../src/plugins/auth.js';
import { Api, describeEachDb, expectProblem } from './helpers.js';

describeEachDb('authentication and scopes', (ctx) => {
  it('stores only a hash of each token', async () => {
    const created = await createIntegration(ctx.db, {
      name: 'hash',
      scopes: [],
      userId: ctx.account.users.admin,
    });
    const rows = await ctx.db.selectFrom('access_tokens').select('token_hash').execute();
    assert.ok(rows.some((r) => r.token_hash === hashToken(created.access_token)));
    assert.ok(!rows.some((r) => r.token_hash === created.access_token));
  });

  it('refuses malformed, unknown, expired and revoked tokens with 401 and WWW-Authenticate', async () => {
    const malformed = await ctx.app.inject({
      url: '/api/v1/whoami',
      headers: { authorization: 'Basic abc' },
    });
    assert.equal(malformed.statusCode, 401);
    assert.match(String(malformed.headers['www-authenticate']), /^Bearer/);
    expectProblem(await new Api(ctx.app, 'pat_unknown').get('/whoami'), 401, 'invalid_token');

    const expiring = await createIntegration(ctx.db, {
      name: 'exp',
      scopes: [],
      userId: ctx.account.users.admin,
      ttlSeconds: 60,
    });
    const api = new Api(ctx.app, expiring.access_token);
    assert.equal((await api.get('/whoami')).status, 200);
    await ctx.db
      .updateTable('access_tokens')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('token_hash', '=', hashToken(expiring.access_token))
      .execute();
    const expired = expectProblem(await api.get('/whoami'), 401, 'invalid_token');
    assert.match(expired.detail, /expired/);

    const revoked = await createIntegration(ctx.db, {
      name: 'rev',
      scopes: [],
      userId: ctx.account.users.admin,
    });
    const rapi = new Api(ctx.app, revoked.access_token);
    assert.equal((await rapi.get('/whoami')).status, 200);
    await revokeIntegration(ctx.db, revoked.id);
    expectProblem(await rapi.get('/whoami'), 401, 'invalid_token');
  });

  it('refuses tokens of deactivated users', async () => {
    const created = await createIntegration(ctx.db, {
      name: 'inactive',
      scopes: [],
      userId: ctx.other.users.member,
    });
    await ctx.db.updateTable('users').set({ active: 0 }).where('id', '=', ctx.other.users.member).execute();
    expectProblem(await new Api(ctx.app, created.access_token).get('/whoami'), 401);
  });

  // Verified tokens are kept in memory (plugins/token-cache.ts): any change to what the check
  // reads, even one made by plain SQL outside the service, must count on the next request.
  it('applies changes to a token already in use on the very next request', async () => {
    const created = await createIntegration(ctx.db, {
      name: 'in use',
      scopes: ['client:read'],
      userId: ctx.account.users.member,
    });
    const api = new Api(ctx.app, created.access_token);
    assert.equal((await api.get('/clients/full')).status, 200);
    const token = ctx.db
      .updateTable('access_tokens')
      .where('token_hash', '=', hashToken(created.access_token));

    await token.set({ scopes: '' }).execute();
    expectProblem(await api.get('/clients/full'), 403, 'insufficient_scope');
    await token.set({ scopes: 'client:read' }).execute();
    assert.equal((await api.get('/clients/full')).status, 200);

    await ctx.db.updateTable('users').set({ active: 0 }).where('id', '=', ctx.account.users.member).execute();
    expectProblem(await api.get('/clients/full'), 401, 'invalid_token');
    await ctx.db.updateTable('users').set({ active: 1 }).where('id', '=', ctx.account.users.member).execute();
    assert.equal((await api.get('/clients/full')).status, 200);

    await ctx.db
      .deleteFrom('access_tokens')
      .where('token_hash', '=', hashToken(created.access_token))
      .execute();
    expectProblem(await api.get('/clients/full'), 401, 'invalid_token');
  });

  it('checks scopes before reading the body: 403 even for an unparseable body', async () => {
    const reader = await ctx.as('client:read');
    const res = await reader.post('/clients', '{not json', { 'content-type': 'application/json' });
    expectProblem(res, 403, 'insufficient_scope');
    assert.match(String(res.headers['www-authenticate']), /insufficient_scope/);
  });

  it('answers problem+json for unknown routes, bad content types and oversized bodies', async () => {
    const api = await ctx.as('client:write');
    expectProblem(await api.get('/no-such-thing'), 404, 'not_found');
    expectProblem(
      await api.post('/clients', 'name=x', { 'content-type': 'text/plain' }),
      415,
      'unsupported_media_type',
    );
    const huge = JSON.stringify({ name: 'x', notes: 'y'.repeat(ctx.app.config.bodyLimit) });
    expectProblem(
      await api.post('/clients', huge, { 'content-type': 'application/json' }),
      413,
      'payload_too_large',
    );
  });

  it('never leaks internals on 500', async () => {
    const { toAppError, problemBody } = await import('../src/plugins/errors.js');
    const body = problemBody(toAppError(new Error('secret connection string postgres://x')));
    assert.equal(body.status, 500);
    assert.doesNotMatch(JSON.stringify(body), /secret|postgres/);
  });
});
