import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createIntegration } from '../src/modules/integration/integration.service.js';
import { Api, describeEachDb, expectProblem } from './helpers.js';

describeEachDb('OAuth 2.0 client credentials', (ctx) => {
  it('issues a token with the requested subset of the granted scopes', async () => {
    const created = await createIntegration(ctx.db, {
      name: 'oauth',
      scopes: ['client:read', 'user:read'],
      userId: ctx.account.users.admin,
    });
    const basic = Buffer.from(`${created.client_id}:${created.client_secret}`).toString('base64');
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/oauth/token',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=client_credentials&scope=client%3Aread',
    });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.token_type, 'Bearer');
    assert.equal(body.scope, 'client:read');
    assert.equal(body.expires_in, 3600);
    const api = new Api(ctx.app, body.access_token);
    assert.equal((await api.get('/clients/full')).status, 200);
    expectProblem(await api.get('/users/full'), 403);
  });

  it('refuses wrong secrets (401) and scopes that were not granted', async () => {
    const created = await createIntegration(ctx.db, {
      name: 'oauth2',
      scopes: ['client:read'],
      userId: ctx.account.users.admin,
    });
    const anon = new Api(ctx.app);
    expectProblem(
      await anon.post('/oauth/token', {
        grant_type: 'client_credentials',
        client_id: created.client_id,
        client_secret: 'nope',
      }),
      401,
      'invalid_client',
    );
    expectProblem(
      await anon.post('/oauth/token', {
        grant_type: 'client_credentials',
        client_id: created.client_id,
        client_secret: created.client_secret,
        scope: 'client:write',
      }),
      403,
    );
    expectProblem(await anon.post('/oauth/token', { grant_type: 'password' }), 422);
  });
});
