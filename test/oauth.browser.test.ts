import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { launchBrowser, screenshots, submitSignIn, withPassword } from './browser.js';
import { createAccount, createTestDb, DB_KINDS } from './helpers.js';
import { discover, listeningApp, oauthClient, oidc, REDIRECT } from './oauth/harness.js';

/**
 * The whole authorization code flow as an app author's user lives it, in a real browser:
 * sign in → consent → redirect with code → token with PKCE → API call → refresh (rotated;
 * the old refresh token then fails and kills the grant) → authorize again → revoke → 401.
 */
for (const kind of DB_KINDS) {
  describe(`OAuth in a real browser [${kind}]`, () => {
    let handle: Awaited<ReturnType<typeof createTestDb>>;
    let server: Awaited<ReturnType<typeof listeningApp>>;
    let browser: Awaited<ReturnType<typeof launchBrowser>>;

    before(async () => {
      handle = await createTestDb(kind);
      server = await listeningApp(handle);
      browser = await launchBrowser({ viewport: { width: 900, height: 720 } });
      // The app's redirect URI: the browser arrives there with the code (no app runs there).
      await browser.context.route(`${new URL(REDIRECT).origin}/**`, (route) =>
        route.fulfill({ status: 200, contentType: 'text/plain', body: 'the app' }),
      );
    });
    after(async () => {
      await browser?.close();
      await server?.app.close();
      await handle?.destroy();
    });

    it('sign in → consent → code → PKCE token → API → refresh (rotated, reuse kills the grant) → revoke → 401', async () => {
      const account = await createAccount(handle.db);
      const email = await withPassword(handle.db, account.users.member);
      const app = await oauthClient(
        handle.db,
        account.users.admin,
        'client:read task-management:read task-management:write user-profile:read',
        {
          public: true,
        },
      );
      const config = await discover(server.origin, app.client_id, null);
      const shot = screenshots(kind, { fullPage: false });

      const authorizeUrl = async () => {
        const verifier = oidc.randomPKCECodeVerifier();
        const state = oidc.randomState();
        const url = oidc.buildAuthorizationUrl(config, {
          redirect_uri: REDIRECT,
          scope: 'client:read task-management:write user-profile:read',
          state,
          code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
        });
        return { url, verifier, state };
      };
      const api = (token: string) =>
        fetch(`${server.origin}/api/v1/users/${account.users.member}`, {
          headers: { authorization: `Bearer ${token}` },
        });

      const page = await browser.context.newPage();
      const first = await authorizeUrl();
      await page.goto(first.url.href);
      assert.equal(new URL(page.url()).pathname, '/signin', 'not signed in: the sign-in page first');
      await shot(page, 'oauth-signin.png');
      await submitSignIn(page, email);
      await page.waitForURL(/\/oauth\/interaction\//);
      assert.equal(await page.title(), 'Allow Acme Time Tracker? · Project and Invoicing');
      const lines = await page.locator('ul.scopes li').allTextContents();
      assert.deepEqual(lines, [
        'See clients',
        'Create and change tasks and comments',
        'See your own full user profile',
      ]);
      await shot(page, 'oauth-consent.png');
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL((u) => u.href.startsWith(REDIRECT));
      const back = new URL(page.url());
      assert.equal(back.searchParams.get('state'), first.state);
      assert.ok(back.searchParams.get('code'));

      const tokens = await oidc.authorizationCodeGrant(config, back, {
        pkceCodeVerifier: first.verifier,
        expectedState: first.state,
      });
      assert.equal(tokens.scope, 'client:read task-management:write user-profile:read');
      const me = await api(tokens.access_token);
      assert.equal(me.status, 200);
      assert.equal(
        ((await me.json()) as any).data.email,
        email,
        'the full profile of the user who consented',
      );

      const rotated = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
      assert.notEqual(rotated.refresh_token, tokens.refresh_token);
      assert.equal((await api(rotated.access_token)).status, 200);
      await assert.rejects(oidc.refreshTokenGrant(config, tokens.refresh_token!), /invalid_grant|error/);
      await assert.rejects(oidc.refreshTokenGrant(config, rotated.refresh_token!), /invalid_grant|error/);
      assert.equal(
        (await api(rotated.access_token)).status,
        401,
        'reuse of the old refresh token killed the grant',
      );

      // The grant is gone, so the user is asked again; then the app's token is revoked (RFC 7009).
      const second = await authorizeUrl();
      await page.goto(second.url.href);
      await page.waitForURL(/\/oauth\/interaction\//);
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL((u) => u.href.startsWith(REDIRECT));
      const again = await oidc.authorizationCodeGrant(config, new URL(page.url()), {
        pkceCodeVerifier: second.verifier,
        expectedState: second.state,
      });
      assert.equal((await api(again.access_token)).status, 200);
      await oidc.tokenRevocation(config, again.refresh_token!);
      assert.equal((await api(again.access_token)).status, 401);
      await page.close();
    });
  });
}
