import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashToken } from '../src/plugins/auth.js';
import { Api, createAccount, createTestDb, DB_KINDS } from './helpers.js';
import { Browser, discover, listeningApp, oauthClient, oidc, REDIRECT } from './oauth/harness.js';

/** An OAuth error answer as openid-client reports it (RFC 6749 §5.2 `error`). */
const isError = (code: string) => (err: unknown) => {
  // A 401 comes as a WWW-Authenticate challenge, whose parameters hold the error.
  const e = err as { error?: string; cause?: Array<{ parameters?: { error?: string } }> };
  assert.equal(e.error ?? e.cause?.[0]?.parameters?.error, code, String(err));
  return true;
};

for (const kind of DB_KINDS) {
  describe(`OAuth authorization code with PKCE [${kind}]`, () => {
    let handle: Awaited<ReturnType<typeof createTestDb>>;
    let server: Awaited<ReturnType<typeof listeningApp>>;
    let account: Awaited<ReturnType<typeof createAccount>>;
    before(async () => {
      handle = await createTestDb(kind);
      server = await listeningApp(handle, { ttl: { AuthorizationCode: 2 } });
      account = await createAccount(handle.db);
    });
    after(async () => {
      await server.app.close();
      await handle.destroy();
    });

    async function authorize(
      browser: Browser,
      config: oidc.Configuration,
      scope: string,
      extra: Record<string, string> = {},
    ) {
      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT,
        scope,
        state,
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        ...extra,
      });
      return { verifier, state, first: await browser.follow(url.href) };
    }

    it('sign-in → consent → code → token with PKCE → API call → refresh (rotated, reuse kills the grant)', async () => {
      const created = await oauthClient(handle.db, account.users.admin, 'client:read user:read');
      const config = await discover(server.origin, created.client_id, created.client_secret);
      const browser = new Browser(server.origin);
      await browser.signIn(server.app, account.users.member);
      const { verifier, state, first } = await authorize(browser, config, 'client:read');
      assert.equal(first.status, 200, first.html);
      assert.match(first.html!, /Acme Time Tracker/);
      assert.match(first.html!, /See clients/);
      const back = await browser.decide(first.html!, 'approve');
      assert.ok(back.location, back.html);
      assert.equal(back.location!.searchParams.get('state'), state);
      const tokens = await oidc.authorizationCodeGrant(config, back.location!, {
        pkceCodeVerifier: verifier,
        expectedState: state,
      });
      assert.equal(tokens.scope, 'client:read');
      assert.ok(tokens.refresh_token);
      const whoami = await fetch(`${server.origin}/api/v1/whoami`, {
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      assert.equal(whoami.status, 200);
      assert.equal(
        ((await whoami.json()) as any).data.id,
        account.users.member,
        'acts as the user who consented',
      );

      const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
      assert.notEqual(refreshed.refresh_token, tokens.refresh_token, 'rotated');
      await assert.rejects(oidc.refreshTokenGrant(config, tokens.refresh_token!), isError('invalid_grant'));
      // Reuse of the old refresh token revoked the whole grant: the new one fails too, and the access tokens.
      await assert.rejects(
        oidc.refreshTokenGrant(config, refreshed.refresh_token!),
        isError('invalid_grant'),
      );
      const after = await fetch(`${server.origin}/api/v1/whoami`, {
        headers: { authorization: `Bearer ${refreshed.access_token}` },
      });
      assert.equal(after.status, 401);
    });

    /** A confidential app, a browser signed in as the member, the app's openid-client configuration. */
    async function setup(scopes = 'client:read user:read', opts: { public?: boolean } = {}) {
      const created = await oauthClient(handle.db, account.users.admin, scopes, opts);
      const config = await discover(server.origin, created.client_id, created.client_secret);
      const browser = new Browser(server.origin);
      await browser.signIn(server.app, account.users.member);
      return { created, config, browser };
    }

    async function codeFor(scope = 'client:read', extra: Record<string, string> = {}) {
      const s = await setup();
      const a = await authorize(s.browser, s.config, scope, extra);
      const back = await s.browser.decide(a.first.html!, 'approve');
      return { ...s, ...a, back: back.location! };
    }

    it('a later authorization for scopes already granted skips the consent page', async () => {
      const { browser, config } = await codeFor('client:read');
      const again = await authorize(browser, config, 'client:read');
      assert.ok(again.first.location?.searchParams.get('code'), 'straight back with a code');
      const wider = await authorize(browser, config, 'client:read user:read');
      assert.equal(wider.first.status, 200, 'a new scope asks again');
      assert.match(wider.first.html!, /See the users of your account/);
    });

    it("the consent page speaks the browser's language (German)", async () => {
      const { browser, config } = await setup('client:read task-management:write user-profile:read');
      browser.language = 'de-DE,de;q=0.9';
      const { first } = await authorize(
        browser,
        config,
        'client:read task-management:write user-profile:read',
      );
      assert.match(first.html!, /<h1>Acme Time Tracker zulassen\?<\/h1>/);
      assert.match(first.html!, /<li title="client:read">Kunden sehen<\/li>/);
      assert.match(first.html!, /Aufgaben und Kommentare anlegen und ändern/);
      assert.match(first.html!, /Ihr eigenes vollständiges Benutzerprofil sehen/);
      assert.match(first.html!, />Zulassen</);
    });

    it('deny: the app gets access_denied with its state', async () => {
      const { browser, config } = await setup();
      const { state, first } = await authorize(browser, config, 'client:read');
      const back = await browser.decide(first.html!, 'deny');
      assert.equal(back.location!.searchParams.get('error'), 'access_denied');
      assert.equal(back.location!.searchParams.get('state'), state);
    });

    it('consent without the CSRF token is refused and issues nothing', async () => {
      const { browser, config } = await setup();
      const { first } = await authorize(browser, config, 'client:read');
      const res = await browser.decide(first.html!, 'approve', 'forged');
      assert.equal(res.location, undefined);
      assert.equal(res.status, 403);
    });

    it('a scope the integration is not registered for is invalid_scope', async () => {
      const { browser, config } = await setup('client:read');
      const { first } = await authorize(browser, config, 'client:read client:write');
      assert.equal(first.location?.searchParams.get('error'), 'invalid_scope');
    });

    it('a redirect URI not registered exactly is refused without redirecting', async () => {
      const { browser, config } = await setup();
      for (const uri of [`${REDIRECT}/x`, `${REDIRECT}?a=1`, 'http://127.0.0.1:9/Callback']) {
        const { first } = await authorize(browser, config, 'client:read', { redirect_uri: uri });
        assert.equal(first.location, undefined, uri);
        assert.equal(first.status, 400);
        assert.match(first.html!, /redirect_uri/);
      }
    });

    it('a wrong or missing PKCE verifier is invalid_grant', async () => {
      const wrong = await codeFor();
      await assert.rejects(
        oidc.authorizationCodeGrant(wrong.config, wrong.back, {
          pkceCodeVerifier: oidc.randomPKCECodeVerifier(),
          expectedState: wrong.state,
        }),
        isError('invalid_grant'),
      );
      const missing = await codeFor();
      const res = await fetch(`${server.origin}/oauth/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${missing.created.client_id}:${missing.created.client_secret}`).toString('base64')}`,
        },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: missing.back.searchParams.get('code')!,
          redirect_uri: REDIRECT,
        }),
      });
      assert.equal(res.status, 400);
      assert.equal(((await res.json()) as any).error, 'invalid_grant');
    });

    it('a replayed code is invalid_grant and revokes the tokens issued with it', async () => {
      const { config, back, verifier, state } = await codeFor();
      const tokens = await oidc.authorizationCodeGrant(config, back, {
        pkceCodeVerifier: verifier,
        expectedState: state,
      });
      await assert.rejects(
        oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier, expectedState: state }),
        isError('invalid_grant'),
      );
      const res = await fetch(`${server.origin}/api/v1/whoami`, {
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      assert.equal(res.status, 401);
    });

    it('an expired code is invalid_grant', async () => {
      const { config, back, verifier, state } = await codeFor();
      await new Promise((r) => setTimeout(r, 2500)); // the test server's codes live 2 s
      await assert.rejects(
        oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier, expectedState: state }),
        isError('invalid_grant'),
      );
    });

    it('a public client must use PKCE; with it, it gets tokens without a secret', async () => {
      const { created, config, browser } = await setup('client:read', { public: true });
      assert.equal(created.client_secret, null);
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT,
        scope: 'client:read',
        state: 'x',
      });
      const refused = await browser.follow(url.href);
      assert.equal(refused.location?.searchParams.get('error'), 'invalid_request');
      assert.match(refused.location!.searchParams.get('error_description')!, /PKCE/);
      const { first, verifier, state } = await authorize(browser, config, 'client:read');
      const back = await browser.decide(first.html!, 'approve');
      const tokens = await oidc.authorizationCodeGrant(config, back.location!, {
        pkceCodeVerifier: verifier,
        expectedState: state,
      });
      assert.ok(tokens.access_token);
      assert.ok(tokens.refresh_token);
    });

    it('revocation (RFC 7009) of the refresh token ends the grant; introspection (RFC 7662) sees it', async () => {
      const { config, back, verifier, state } = await codeFor();
      const tokens = await oidc.authorizationCodeGrant(config, back, {
        pkceCodeVerifier: verifier,
        expectedState: state,
      });
      const live = await oidc.tokenIntrospection(config, tokens.access_token);
      assert.equal(live.active, true);
      assert.equal(live.scope, 'client:read');
      assert.equal(live.sub, String(account.users.member));
      await oidc.tokenRevocation(config, tokens.refresh_token!);
      assert.equal((await oidc.tokenIntrospection(config, tokens.access_token)).active, false);
      const res = await fetch(`${server.origin}/api/v1/whoami`, {
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      assert.equal(res.status, 401);
      await assert.rejects(oidc.refreshTokenGrant(config, tokens.refresh_token!), isError('invalid_grant'));
    });

    it('deactivating the user or revoking the integration ends refresh tokens too', async () => {
      const a = await codeFor();
      const ta = await oidc.authorizationCodeGrant(a.config, a.back, {
        pkceCodeVerifier: a.verifier,
        expectedState: a.state,
      });
      await handle.db
        .updateTable('integrations')
        .set({ revoked_at: new Date().toISOString() })
        .where('client_id', '=', a.created.client_id)
        .execute();
      await assert.rejects(oidc.refreshTokenGrant(a.config, ta.refresh_token!), isError('invalid_client'));

      const other = await createAccount(handle.db);
      const created = await oauthClient(handle.db, other.users.admin, 'client:read');
      const config = await discover(server.origin, created.client_id, created.client_secret);
      const browser = new Browser(server.origin);
      await browser.signIn(server.app, other.users.member);
      const { first, verifier, state } = await authorize(browser, config, 'client:read');
      const back = await browser.decide(first.html!, 'approve');
      const tb = await oidc.authorizationCodeGrant(config, back.location!, {
        pkceCodeVerifier: verifier,
        expectedState: state,
      });
      await handle.db.updateTable('users').set({ active: 0 }).where('id', '=', other.users.member).execute();
      const api = await fetch(`${server.origin}/api/v1/whoami`, {
        headers: { authorization: `Bearer ${tb.access_token}` },
      });
      assert.equal(api.status, 401);
      await assert.rejects(oidc.refreshTokenGrant(config, tb.refresh_token!), isError('invalid_grant'));
    });

    it('a user of another account cannot authorize the app', async () => {
      const { config } = await setup();
      const other = await createAccount(handle.db);
      const browser = new Browser(server.origin);
      await browser.signIn(server.app, other.users.admin);
      const { first } = await authorize(browser, config, 'client:read');
      assert.equal(first.location?.searchParams.get('error'), 'access_denied');
    });

    it('client credentials at /oauth/token and at the old /api/v1/oauth/token', async () => {
      const { config, created } = await setup('client:read user:read');
      const cc = await oidc.clientCredentialsGrant(config, { scope: 'client:read' });
      const res = await fetch(`${server.origin}/api/v1/integration`, {
        headers: { authorization: `Bearer ${cc.access_token}` },
      });
      assert.equal(res.status, 200);
      assert.deepEqual(((await res.json()) as any).data.token_scopes, ['client:read']);
      await assert.rejects(
        oidc.clientCredentialsGrant(config, { scope: 'client:write' }),
        isError('invalid_scope'),
      );
      const old = await fetch(`${server.origin}/api/v1/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: created.client_id,
          client_secret: created.client_secret!,
        }),
      });
      assert.equal(old.status, 200);
    });

    it('RFC 8414 metadata names the endpoints, PKCE S256 and the scopes', async () => {
      const res = await fetch(`${server.origin}/.well-known/oauth-authorization-server`);
      assert.equal(res.status, 200);
      const meta = (await res.json()) as any;
      assert.equal(meta.issuer, server.origin);
      assert.equal(meta.authorization_endpoint, `${server.origin}/oauth/auth`);
      assert.equal(meta.token_endpoint, `${server.origin}/oauth/token`);
      assert.equal(meta.revocation_endpoint, `${server.origin}/oauth/revoke`);
      assert.equal(meta.introspection_endpoint, `${server.origin}/oauth/introspect`);
      assert.deepEqual(meta.code_challenge_methods_supported, ['S256']);
      assert.ok(meta.scopes_supported.includes('task-management:write'));
    });

    it('users list the apps they authorized and revoke one; admins list every grant of the account', async () => {
      const { config, back, verifier, state, created } = await codeFor('client:read');
      const tokens = await oidc.authorizationCodeGrant(config, back, {
        pkceCodeVerifier: verifier,
        expectedState: state,
      });
      const api = (token: string) => new Api(server.app, token);
      // The member's own token for the console would carry `integration`; one made for this test:
      const consoleApp = await oauthClient(handle.db, account.users.admin, 'integration');
      const mine = await handle.db
        .insertInto('access_tokens')
        .values({
          integration_id: consoleApp.id,
          token_hash: hashToken('member-console'),
          scopes: 'integration',
          expires_at: null,
          user_id: account.users.member,
          grant_id: null,
        })
        .execute();
      assert.ok(mine);
      const list = await api('member-console').get('/integration/grants');
      assert.equal(list.status, 200, list.text);
      const grant = list.body.data.find((g: any) => g.integration_id === created.id);
      assert.ok(grant);
      assert.equal(grant.app_name, 'Acme Time Tracker');
      assert.equal(grant.user_id, account.users.member);
      assert.deepEqual(grant.scope_descriptions, ['See clients']);
      assert.ok(list.body.data.every((g: any) => g.user_id === account.users.member));
      assert.equal((await api('member-console').get('/integration/grants?all=true')).status, 403);
      const admin = await new Api(server.app, consoleApp.access_token).get('/integration/grants?all=true');
      assert.equal(admin.status, 200);
      assert.ok(admin.body.data.some((g: any) => g.id === grant.id));

      const other = await createAccount(handle.db);
      const otherAdmin = await oauthClient(handle.db, other.users.admin, 'integration');
      assert.equal(
        (await new Api(server.app, otherAdmin.access_token).delete(`/integration/grants/${grant.id}`)).status,
        404,
      );

      assert.equal((await api('member-console').delete(`/integration/grants/${grant.id}`)).status, 204);
      const res = await fetch(`${server.origin}/api/v1/whoami`, {
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      assert.equal(res.status, 401);
      await assert.rejects(oidc.refreshTokenGrant(config, tokens.refresh_token!), isError('invalid_grant'));
      assert.equal((await api('member-console').delete(`/integration/grants/${grant.id}`)).status, 404);
    });
  });
}
