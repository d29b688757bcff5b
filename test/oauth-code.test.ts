import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccount, createTestDb, DB_KINDS } from './helpers.js';
import { Browser, discover, listeningApp, oauthClient, oidc, REDIRECT } from './oauth/harness.js';

/** An OAuth error answer as openid-client reports it (RFC 6749 §5.2 `error`). */
const isError = (code: string) => (err: unknown) => {
  assert.equal((err as { error?: string }).error, code, String(err));
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
      assert.equal((await whoami.json()).data.id, account.users.member, 'acts as the user who consented');

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
  });
}
