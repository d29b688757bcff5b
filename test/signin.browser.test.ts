import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { BrowserContext } from 'playwright-core';
import { inviteUser } from '../src/modules/users/passwords.service.js';
import { launchBrowser, listen, PASSWORD, screenshots, withPassword } from './browser.js';
import { describeEachDb } from './helpers.js';

describeEachDb('sign-in in a real browser', (ctx) => {
  let base: string;
  let email: string;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let context: BrowserContext;
  // Screenshots once (SQLite run): they show pages, which are the same on both databases.
  const shot = screenshots(ctx.kind, { fullPage: false });

  before(async () => {
    base = await listen(ctx.app);
    email = await withPassword(ctx.db, ctx.account.users.admin);
    browser = await launchBrowser();
    context = browser.context;
  });
  after(async () => {
    await browser?.close();
  });

  it('signs in through the page, shows the signed-in page, signs out', async () => {
    const page = await context.newPage();
    // A page that needs a session sends the visitor to sign in, and back afterwards.
    await page.goto(`${base}/me`);
    assert.equal(new URL(page.url()).pathname, '/signin');
    assert.equal(new URL(page.url()).searchParams.get('return_to'), '/me');
    assert.equal(await page.title(), 'Sign in · Project and Invoicing');
    await shot(page, 'signin.png');

    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill('not my password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForLoadState();
    assert.equal(await page.getByRole('alert').textContent(), 'The e-mail or the password is wrong.');
    await shot(page, 'signin-failed.png');

    // With the keyboard only: the e-mail is kept, Enter in the password field submits.
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByLabel('Password').press('Enter');
    await page.waitForURL(`${base}/me`);
    const status = await page.getByRole('status').textContent();
    assert.equal(status, 'You are signed in as Ada Admin.');
    const cookies = await context.cookies(base);
    const sid = cookies.find((c) => c.name === 'sid');
    assert.ok(sid?.httpOnly && sid.sameSite === 'Lax', JSON.stringify(sid));
    await shot(page, 'signed-in.png');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${base}/signin?signed_out`);
    assert.equal(await page.getByRole('status').textContent(), 'You have signed out.');
    await page.goto(`${base}/me`);
    assert.equal(new URL(page.url()).pathname, '/signin', 'signed out for real');
    await page.close();
  });

  it('an invited user sets a password on a phone-sized screen, in German', async () => {
    const phone = await launchBrowser({ locale: 'de-DE', viewport: { width: 390, height: 700 } });
    try {
      const inv = await inviteUser(
        ctx.db,
        { email: 'neu@test.example', accountId: ctx.account.accountId, firstName: 'Nora', lastName: 'Neu' },
        base,
      );
      const page = await phone.context.newPage();
      await page.goto(inv.url);
      assert.equal(await page.title(), 'Passwort festlegen · Projekte und Rechnungen');
      await page.getByLabel('Neues Passwort').fill(PASSWORD);
      await page.getByLabel('Passwort wiederholen').fill(PASSWORD);
      await shot(page, 'invite-phone-de.png');
      await page.getByRole('button', { name: 'Passwort festlegen' }).click();
      await page.waitForURL(`${base}/me`);
      assert.equal(await page.getByRole('status').textContent(), 'Sie sind als Nora Neu angemeldet.');
      await page.goto(inv.url);
      assert.match(
        (await page.getByRole('alert').textContent()) ?? '',
        /abgelaufen oder wurde bereits verwendet/,
      );
    } finally {
      await phone.close();
    }
  });
});
