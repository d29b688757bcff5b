import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createIntegration } from '../src/modules/integration/integration.service.js';
import { Api, countRows, describeEachDb, expectProblem } from './helpers.js';

const basic = (s: string) => `Basic ${Buffer.from(s, 'latin1').toString('base64')}`;

describeEachDb('OAuth 2.0 client credentials', (ctx) => {
  const token = (payload: string | object, headers: Record<string, string> = {}) =>
    ctx.app.inject({
      method: 'POST',
      url: '/api/v1/oauth/token',
      headers: {
        'content-type':
          typeof payload === 'string' ? 'application/x-www-form-urlencoded' : 'application/json',
        ...headers,
      },
      payload,
    });

  /** An RFC 6749 §5.2 error answer: status, `error`, no caching, and nothing else in the body. */
  function expectOAuthError(res: Awaited<ReturnType<typeof token>>, status: number, error: string) {
    assert.equal(res.statusCode, status, res.body);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.equal(res.headers.pragma, 'no-cache');
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description']);
    assert.equal(body.error, error);
    assert.equal(typeof body.error_description, 'string');
    if (status === 401) assert.match(String(res.headers['www-authenticate']), /^Basic realm="/);
  }

  async function integration(scopes = ['client:read', 'user:read']) {
    return createIntegration(ctx.db, { name: 'oauth', scopes, userId: ctx.account.users.admin });
  }

  it('issues a token with the requested subset of the granted scopes', async () => {
    const created = await integration();
    const res = await token('grant_type=client_credentials&scope=client%3Aread', {
      authorization: basic(`${created.client_id}:${created.client_secret}`),
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['cache-control'], 'no-store');
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['access_token', 'expires_in', 'scope', 'token_type']);
    assert.equal(body.token_type, 'Bearer');
    assert.equal(body.scope, 'client:read');
    assert.equal(body.expires_in, 3600);
    const api = new Api(ctx.app, body.access_token);
    assert.equal((await api.get('/clients/full')).status, 200);
    expectProblem(await api.get('/users/full'), 403);
  });

  it('accepts credentials in a JSON body, and ignores parameters it does not know (RFC 6749 §3.2)', async () => {
    const created = await integration();
    const res = await token({
      grant_type: 'client_credentials',
      client_id: created.client_id,
      client_secret: created.client_secret,
      audience: 'ignored',
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().scope, 'client:read user:read');
  });

  it('answers a wrong secret or an unknown client with 401 invalid_client', async () => {
    const created = await integration();
    expectOAuthError(
      await token({ grant_type: 'client_credentials', client_id: created.client_id, client_secret: 'nope' }),
      401,
      'invalid_client',
    );
    expectOAuthError(
      await token('grant_type=client_credentials', {
        authorization: basic(`ci_unknown:${created.client_secret}`),
      }),
      401,
      'invalid_client',
    );
    expectOAuthError(await token('grant_type=client_credentials'), 401, 'invalid_client');
  });

  it('answers malformed HTTP Basic credentials with 401 invalid_client, never 500', async () => {
    const created = await integration();
    const before = await countRows(ctx.db, 'access_tokens');
    for (const authorization of [
      'Basic',
      'Basic ',
      'Basic !!!not-base64!!!',
      'Basic abc',
      basic('no-colon-here'),
      basic(':secret'),
      basic(''),
      basic(`${created.client_id}:%E0%A4%A`), // broken percent-encoding
      basic(`${created.client_id}:%00`), // a NUL byte once decoded
      basic(`${created.client_id}:\u00e9`), // not printable ASCII
      `Basic ${'A'.repeat(100_000)}`,
      'Bearer something',
      'Digest username="x"',
    ]) {
      expectOAuthError(
        await token('grant_type=client_credentials', { authorization }),
        401,
        'invalid_client',
      );
    }
    assert.equal(await countRows(ctx.db, 'access_tokens'), before);
  });

  it('decodes form-urlencoded id and secret inside Basic (RFC 6749 §2.3.1)', async () => {
    const created = await integration();
    const secret = encodeURIComponent(created.client_secret!).replace(/_/g, '%5F');
    const res = await token('grant_type=client_credentials', {
      authorization: basic(`${encodeURIComponent(created.client_id)}:${secret}`),
    });
    assert.equal(res.statusCode, 200, res.body);
  });

  it('refuses credentials given twice (header and body) as invalid_request', async () => {
    const created = await integration();
    expectOAuthError(
      await token(`grant_type=client_credentials&client_id=${created.client_id}`, {
        authorization: basic(`${created.client_id}:${created.client_secret}`),
      }),
      400,
      'invalid_request',
    );
  });

  it('answers bad grant types, bad scopes and bad bodies with the §5.2 codes', async () => {
    const created = await integration(['client:read']);
    const auth = { authorization: basic(`${created.client_id}:${created.client_secret}`) };
    expectOAuthError(await token('grant_type=password', auth), 400, 'unsupported_grant_type');
    expectOAuthError(
      await ctx.app.inject({
        method: 'POST',
        url: '/api/v1/oauth/token?grant_type=client_credentials',
        headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'grant_type=client_credentials',
      }),
      400,
      'invalid_request',
    );
    expectOAuthError(await token('scope=client%3Aread', auth), 400, 'invalid_request');
    expectOAuthError(
      await token('grant_type=client_credentials&grant_type=client_credentials', auth),
      400,
      'invalid_request',
    );
    expectOAuthError(
      await token('grant_type=client_credentials&scope=client%3Awrite', auth),
      400,
      'invalid_scope',
    );
    expectOAuthError(
      await token('grant_type=client_credentials&scope=%22quoted%22', auth),
      400,
      'invalid_scope',
    );
    expectOAuthError(
      await token('{', { ...auth, 'content-type': 'application/json' }),
      400,
      'invalid_request',
    );
    expectOAuthError(await token('hello', { ...auth, 'content-type': 'text/plain' }), 400, 'invalid_request');
    expectOAuthError(
      await token({ grant_type: 'client_credentials', client_id: 'x\u0000y', client_secret: 's' }),
      400,
      'invalid_request',
    );
  });

  it('answers a client whose user was deactivated with unauthorized_client', async () => {
    const created = await createIntegration(ctx.db, {
      name: 'oauth',
      scopes: ['client:read'],
      userId: ctx.other.users.member,
    });
    await ctx.db.updateTable('users').set({ active: 0 }).where('id', '=', ctx.other.users.member).execute();
    try {
      expectOAuthError(
        await token('grant_type=client_credentials', {
          authorization: basic(`${created.client_id}:${created.client_secret}`),
        }),
        400,
        'unauthorized_client',
      );
    } finally {
      await ctx.db.updateTable('users').set({ active: 1 }).where('id', '=', ctx.other.users.member).execute();
    }
  });

  it('documents the §5.2 error answers in the OpenAPI document', async () => {
    const doc = (await ctx.anon.get('/openapi.json')).body;
    const responses = doc.paths['/api/v1/oauth/token'].post.responses;
    assert.ok(!('422' in responses), 'refusals are 400 invalid_request here, never 422');
    for (const status of ['400', '401']) {
      const schema = responses[status].content['application/json'].schema;
      assert.deepEqual(schema.required.sort(), ['error', 'error_description']);
    }
  });
});
