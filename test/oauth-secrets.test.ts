import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../src/app.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { createIntegration } from '../src/modules/integration/integration.service.js';
import { openJwk } from '../src/modules/oauth/oauth.keys.js';
import { hashToken } from '../src/shared/tokens.js';
import { createAccount, createTestDb, DB_KINDS, testConfig } from './helpers.js';
import { Browser, discover, listeningApp, oauthClient, oidc, REDIRECT } from './oauth/harness.js';

/** An OAuth error answer as openid-client reports it (RFC 6749 §5.2 `error`). */
const isError = (code: string) => (err: unknown) => {
  const e = err as { error?: string; cause?: Array<{ parameters?: { error?: string } }> };
  assert.equal(e.error ?? e.cause?.[0]?.parameters?.error, code, String(err));
  return true;
};

for (const kind of DB_KINDS) {
  describe(`OAuth secrets at rest, introspection, metadata [${kind}]`, () => {
    let handle: Awaited<ReturnType<typeof createTestDb>>;
    let server: Awaited<ReturnType<typeof listeningApp>>;
    let account: Awaited<ReturnType<typeof createAccount>>;
    before(async () => {
      handle = await createTestDb(kind);
      server = await listeningApp(handle);
      account = await createAccount(handle.db);
    });
    after(async () => {
      await server.app.close();
      await handle.destroy();
    });

    /** An app of `acct`, a browser signed in as its member, and a code that browser approved. */
    async function code(acct = account, scope = 'client:read') {
      const created = await oauthClient(handle.db, acct.users.admin, 'client:read user:read');
      const config = await discover(server.origin, created.client_id, created.client_secret);
      const browser = new Browser(server.origin);
      await browser.signIn(server.app, acct.users.member);
      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT,
        scope,
        state,
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      });
      const first = await browser.follow(url.href);
      const back = (await browser.decide(first.html!, 'approve')).location!;
      return { created, config, verifier, state, back };
    }

    const exchange = (c: Awaited<ReturnType<typeof code>>, back = c.back) =>
      oidc.authorizationCodeGrant(c.config, back, { pkceCodeVerifier: c.verifier, expectedState: c.state });

    const rows = (model: string) =>
      handle.db.selectFrom('oauth_store').select(['id', 'payload']).where('model', '=', model).execute();

    const whoami = (token: string) =>
      fetch(`${server.origin}/api/v1/whoami`, { headers: { authorization: `Bearer ${token}` } }).then(
        (r) => r.status,
      );

    it('a code, an access token and a refresh token read from the database do not work', async () => {
      const c = await code();
      const value = c.back.searchParams.get('code')!;
      const codes = await rows('AuthorizationCode');
      assert.ok(codes.length > 0);
      for (const r of codes)
        assert.ok(!r.id.includes(value) && !r.payload.includes(value), 'code stored as is');
      // The stored key presented as the code.
      const stolen = new URL(c.back);
      stolen.searchParams.set('code', codes.at(-1)!.id);
      await assert.rejects(exchange(c, stolen), isError('invalid_grant'));

      const tokens = await exchange(c);
      assert.equal(await whoami(tokens.access_token), 200, 'the real token works');
      const everything = JSON.stringify(await handle.db.selectFrom('oauth_store').selectAll().execute());
      for (const secret of [tokens.access_token, tokens.refresh_token!])
        assert.ok(!everything.includes(secret), 'a token stored as is');
      for (const r of await rows('AccessToken')) assert.equal(await whoami(r.id), 401);
      const refresh = await rows('RefreshToken');
      assert.ok(refresh.length > 0);
      for (const r of refresh)
        await assert.rejects(oidc.refreshTokenGrant(c.config, r.id), isError('invalid_grant'));
      // The real refresh token still works (and rotates).
      const refreshed = await oidc.refreshTokenGrant(c.config, tokens.refresh_token!);
      assert.equal(await whoami(refreshed.access_token), 200);
      const live = await oidc.tokenIntrospection(c.config, refreshed.access_token);
      assert.equal(live.active, true);
      // Stored hashes introspect as nothing.
      for (const r of await rows('AccessToken'))
        assert.equal((await oidc.tokenIntrospection(c.config, r.id)).active, false);
    });

    it("introspection: inactive once the user is deactivated or the grant revoked; another tenant's client learns nothing", async () => {
      const a = await code();
      const ta = await exchange(a);
      assert.equal((await oidc.tokenIntrospection(a.config, ta.access_token)).active, true);
      assert.equal((await oidc.tokenIntrospection(a.config, ta.refresh_token!)).active, true);

      // A confidential client of another account asks about this account's tokens.
      const other = await createAccount(handle.db);
      const foreign = await oauthClient(handle.db, other.users.admin, 'client:read');
      const foreignConfig = await discover(server.origin, foreign.client_id, foreign.client_secret);
      for (const t of [ta.access_token, ta.refresh_token!]) {
        const answer = await oidc.tokenIntrospection(foreignConfig, t);
        assert.deepEqual(answer, { active: false });
      }
      // Another app of the same account may.
      const sibling = await oauthClient(handle.db, account.users.admin, 'client:read');
      const siblingConfig = await discover(server.origin, sibling.client_id, sibling.client_secret);
      assert.equal((await oidc.tokenIntrospection(siblingConfig, ta.access_token)).active, true);

      await handle.db
        .updateTable('users')
        .set({ active: 0 })
        .where('id', '=', account.users.member)
        .execute();
      try {
        for (const t of [ta.access_token, ta.refresh_token!])
          assert.equal((await oidc.tokenIntrospection(a.config, t)).active, false, 'deactivated user');
      } finally {
        await handle.db
          .updateTable('users')
          .set({ active: 1 })
          .where('id', '=', account.users.member)
          .execute();
      }

      const b = await code();
      const tb = await exchange(b);
      assert.equal((await oidc.tokenIntrospection(b.config, tb.access_token)).active, true);
      const grantId = (
        await handle.db
          .selectFrom('oauth_store')
          .select('id')
          .where('model', '=', 'Grant')
          .where('client_id', '=', b.created.client_id)
          .executeTakeFirstOrThrow()
      ).id;
      // An admin revokes the app's grant through the API (not the provider's revocation endpoint).
      const admin = await createIntegration(handle.db, {
        name: 'admin',
        scopes: ['integration'],
        userId: account.users.admin,
      });
      const revoked = await fetch(`${server.origin}/api/v1/integration/grants/${grantId}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${admin.access_token}` },
      });
      assert.equal(revoked.status, 204, await revoked.text());
      for (const t of [tb.access_token, tb.refresh_token!])
        assert.equal((await oidc.tokenIntrospection(b.config, t)).active, false, 'revoked grant');
    });

    it('migration 700 rewrites tokens stored as they were before: their holders keep them', async () => {
      const c = await code();
      const tokens = await exchange(c);
      // Back to the earlier form: keyed by the value, the value in the payload.
      for (const [model, value] of [
        ['AccessToken', tokens.access_token],
        ['RefreshToken', tokens.refresh_token!],
      ] as const) {
        const row = await handle.db
          .selectFrom('oauth_store')
          .select('payload')
          .where('model', '=', model)
          .where('id', '=', hashToken(value))
          .executeTakeFirstOrThrow();
        await handle.db
          .updateTable('oauth_store')
          .set({ id: value, payload: JSON.stringify({ ...JSON.parse(row.payload), jti: value }) })
          .where('model', '=', model)
          .where('id', '=', hashToken(value))
          .execute();
      }
      const migration = await import('../src/db/migrations/2026_12_07_700_oauth_store_hashed.js');
      await migration.up(handle.db);
      const everything = JSON.stringify(await handle.db.selectFrom('oauth_store').selectAll().execute());
      for (const secret of [tokens.access_token, tokens.refresh_token!])
        assert.ok(!everything.includes(secret));
      assert.equal((await oidc.tokenIntrospection(c.config, tokens.access_token)).active, true);
      const refreshed = await oidc.refreshTokenGrant(c.config, tokens.refresh_token!);
      assert.equal(await whoami(refreshed.access_token), 200);
    });

    it('the signing key is stored sealed with SECRET_KEY; one stored in the clear before is sealed on start', async () => {
      const stored = async () =>
        (
          await handle.db
            .selectFrom('oauth_store')
            .select('payload')
            .where('model', '=', 'Jwks')
            .where('id', '=', 'signing')
            .executeTakeFirstOrThrow()
        ).payload;
      const sealed = JSON.parse(await stored());
      assert.deepEqual(Object.keys(sealed), ['enc'], 'no key material in the clear');
      const key = openJwk(server.app.config.secretKey, await stored())!.jwk;
      assert.ok(key.d);
      // As stored by an earlier version: the private key in the clear.
      await handle.db
        .updateTable('oauth_store')
        .set({ payload: JSON.stringify(key) })
        .where('model', '=', 'Jwks')
        .execute();
      const again = await buildApp(testConfig(), { db: handle, logger: false });
      await again.ready();
      await again.close();
      assert.deepEqual(Object.keys(JSON.parse(await stored())), ['enc']);
      assert.deepEqual(
        openJwk(server.app.config.secretKey, await stored())!.jwk,
        key,
        'the same key, sealed',
      );
      // Started with another SECRET_KEY: that key does not open it; a new one replaces it.
      const other = await buildApp(testConfig({ secretKey: 'another-secret-key-0123456789abcdef-xyz' }), {
        db: handle,
        logger: false,
      });
      await other.ready();
      await other.close();
      assert.equal(openJwk(server.app.config.secretKey, await stored()), null);
      assert.notEqual(openJwk('another-secret-key-0123456789abcdef-xyz', await stored())!.jwk.d, key.d);
    });

    it("the metadata's URLs come from PUBLIC_URL, whatever Host the request names", async () => {
      const { port } = new URL(server.origin);
      const res = await fetch(`http://127.0.0.1:${port}/.well-known/oauth-authorization-server`, {
        headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
      });
      assert.equal(res.status, 200);
      const meta = (await res.json()) as Record<string, unknown>;
      assert.ok(!JSON.stringify(meta).includes('evil.example'), JSON.stringify(meta));
      assert.equal(meta.issuer, server.origin);
      assert.equal(meta.token_endpoint, `${server.origin}/oauth/token`);
      assert.equal(meta.introspection_endpoint, `${server.origin}/oauth/introspect`);
    });

    it('a credential in the query string is not sent back in a problem', async () => {
      for (const url of [
        '/api/v1/clients/full?access_token=SECRET-QUERY-TOKEN',
        '/api/v1/nowhere?access_token=SECRET-QUERY-TOKEN&page=2',
        '/api/v1/clients/full?page=x&client_secret=SECRET-QUERY-TOKEN',
      ]) {
        const res = await server.app.inject({ url, headers: { authorization: 'Bearer nope' } });
        assert.ok(res.statusCode >= 400, url);
        assert.ok(!res.body.includes('SECRET-QUERY-TOKEN'), res.body);
        assert.ok(!JSON.stringify(res.headers).includes('SECRET-QUERY-TOKEN'), url);
      }
    });
  });
}

describe('TRUST_PROXY', () => {
  it('hops or addresses; anything else is refused', () => {
    assert.equal(loadConfig({}).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8, loopback,::1' }).trustProxy, [
      '10.0.0.0/8',
      'loopback',
      '::1',
    ]);
    for (const v of ['true', 'proxy.example', 'abc', '10.0.0.0/8;x', '10.0.0.0/x', ','])
      assert.throws(
        () => loadConfig({ TRUST_PROXY: v }),
        (e: Error) => e instanceof ConfigError && e.message.startsWith('TRUST_PROXY must be'),
        v,
      );
  });

  it("rate limits count per client address from the trusted proxy's X-Forwarded-For, and only from it", async () => {
    const budget = async (trustProxy: false | number | string[]) => {
      const app = await buildApp(
        testConfig({ rateLimitPerMinute: 2, trustProxy, db: { kind: 'sqlite', file: ':memory:' } }),
        {
          logger: false,
        },
      );
      try {
        const statuses: number[] = [];
        for (const client of ['203.0.113.1', '203.0.113.1', '203.0.113.1', '203.0.113.2'])
          statuses.push(
            (await app.inject({ url: '/api/v1/clients/full', headers: { 'x-forwarded-for': client } }))
              .statusCode,
          );
        return statuses;
      } finally {
        await app.close();
      }
    };
    // Behind one proxy (inject comes from 127.0.0.1): each client has its own budget.
    assert.deepEqual(await budget(1), [401, 401, 429, 401]);
    assert.deepEqual(await budget(['127.0.0.1']), [401, 401, 429, 401]);
    // Without TRUST_PROXY the header is the client's word: every caller shares the proxy's budget.
    assert.deepEqual(await budget(false), [401, 401, 429, 429]);
  });
});
