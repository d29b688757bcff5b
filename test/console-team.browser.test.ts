import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, it } from 'node:test';
import { setPassword } from '../src/modules/users/passwords.service.js';
import { launchBrowser, listen, PASSWORD, screenshots, signIn, withPassword } from './browser.js';
import { describeEachDb } from './helpers.js';

describeEachDb('console users page in a real browser', (ctx) => {
  let base: string;
  let adminEmail: string;
  let memberEmail: string;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let evil: http.Server;
  const shot = screenshots(ctx.kind);

  before(async () => {
    base = await listen(ctx.app);
    adminEmail = await withPassword(ctx.db, ctx.account.users.admin);
    memberEmail = await withPassword(ctx.db, ctx.account.users.member);
    browser = await launchBrowser({ viewport: { width: 1100, height: 700 } });
  });
  after(async () => {
    await browser?.close();
    evil?.close();
  });

  it('invites a user, changes a role, deactivates and reactivates', async () => {
    const page = await browser.context.newPage();
    await signIn(page, base, adminEmail, '/console/users');
    assert.equal(await page.title(), 'Users · Project and Invoicing');
    await page.getByLabel('E-mail').fill('nina.new@test.example');
    await page.getByLabel('First name').fill('Nina');
    await page.getByLabel('Last name').fill('New');
    await page.getByLabel('Role').selectOption('member');
    await page.getByRole('button', { name: 'Create invitation link' }).click();
    await page.waitForLoadState();
    const link = await page.getByLabel('Invitation link', { exact: true }).inputValue();
    assert.match(link, /\/invite\/[\w-]{40,}$/);
    assert.ok(await page.getByRole('cell', { name: 'nina.new@test.example' }).isVisible());
    await shot(page, 'console-users.png');

    await page.getByRole('button', { name: 'Make administrator: Max Member' }).click();
    await page.waitForURL(`${base}/console/users?done=role`);
    assert.equal(await page.getByRole('status').textContent(), 'The role is changed.');
    await page.getByRole('button', { name: 'Make member: Max Member' }).click();
    await page.waitForURL(`${base}/console/users?done=role`);

    // Keyboard only: focus the button and press Enter.
    await page.getByRole('button', { name: 'Deactivate: Max Member' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${base}/console/users?done=deactivated`);
    assert.ok(await page.getByRole('button', { name: 'Reactivate: Max Member' }).isVisible());
    await page.getByRole('button', { name: 'Reactivate: Max Member' }).click();
    await page.waitForURL(`${base}/console/users?done=reactivated`);
    await page.close();
  });

  it('a member is refused the users page, and changes their own password', async () => {
    const member = await launchBrowser();
    try {
      const page = await member.context.newPage();
      await signIn(page, base, memberEmail, '/console/password');
      await page.goto(`${base}/console/users`);
      assert.match((await page.getByRole('alert').textContent()) ?? '', /for administrators of the account/);
      await page.goto(`${base}/console/password`);
      await page.getByLabel('Current password').fill(PASSWORD);
      await page.getByLabel('New password', { exact: true }).fill('another long passphrase');
      await page.getByLabel('Repeat the new password').fill('another long passphrase');
      await page.getByRole('button', { name: 'Change password' }).click();
      await page.waitForLoadState();
      assert.equal(
        await page.getByRole('alert').count(),
        0,
        (await page.getByRole('alert').allTextContents()).join(),
      );
      await page.waitForURL(`${base}/console/password?changed`);
      assert.match((await page.getByRole('status').textContent()) ?? '', /Your password is changed/);
      await setPassword(ctx.db, ctx.account.users.member, PASSWORD);
    } finally {
      await member.close();
    }
  });

  it('refuses a form posted from another site (CSRF), changing nothing', async () => {
    // Another origin (another port) with a form that posts to the console on its own.
    evil = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html>
        <form id="f" method="post" action="${base}/console/users/${ctx.account.users.member}/active">
          <input type="hidden" name="active" value="0"><input type="hidden" name="_csrf" value="guessed">
        </form><script>document.getElementById('f').submit()</script>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    const page = await browser.context.newPage();
    const answer = page.waitForResponse((r) => r.url().endsWith('/active'));
    await page.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
    assert.equal((await answer).status(), 403);
    const row = await ctx.db
      .selectFrom('users')
      .select('active')
      .where('id', '=', ctx.account.users.member)
      .executeTakeFirstOrThrow();
    assert.equal(Number(row.active), 1);
    await page.close();
  });

  it('works on a phone, in German', async () => {
    const phone = await launchBrowser({ locale: 'de-DE', viewport: { width: 390, height: 800 } });
    try {
      const page = await phone.context.newPage();
      await page.goto(`${base}/signin?return_to=/console/users`);
      await page.getByLabel('E-Mail').fill(adminEmail);
      await page.getByLabel('Passwort').fill(PASSWORD);
      await page.getByRole('button', { name: 'Anmelden' }).click();
      await page.waitForURL(`${base}/console/users`);
      assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Benutzer');
      assert.ok(await page.getByRole('button', { name: 'Deaktivieren: Max Member' }).isVisible());
      // Nothing wider than the screen.
      const width = Number(await page.evaluate('document.documentElement.scrollWidth'));
      assert.ok(width <= 390, `page is ${width}px wide`);
      await shot(page, 'console-users-phone-de.png');
    } finally {
      await phone.close();
    }
  });
});
