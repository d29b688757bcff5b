import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Page } from 'playwright-core';
import { listTemplates } from '../src/modules/mail/mail.public.js';
import { setPassword } from '../src/modules/users/passwords.service.js';
import { launchBrowser, screenshotPath } from './browser.js';
import { describeEachDb } from './helpers.js';

const PASSWORD = 'correct horse battery staple';

describeEachDb('console e-mail texts in a real browser', (ctx) => {
  let base: string;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let email = '';
  const shot = (page: Page, name: string) =>
    ctx.kind === 'sqlite'
      ? page.screenshot({ path: screenshotPath(name), fullPage: true })
      : Promise.resolve(undefined);
  const own = async () =>
    (
      await listTemplates(ctx.db, { accountId: ctx.account.accountId, userId: ctx.account.users.admin })
    ).filter((t) => !t.built_in);

  before(async () => {
    await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    const address = ctx.app.server.address();
    assert.ok(address && typeof address === 'object');
    base = `http://127.0.0.1:${address.port}`;
    await setPassword(ctx.db, ctx.account.users.admin, PASSWORD);
    email = (
      await ctx.db
        .selectFrom('users')
        .select('email')
        .where('id', '=', ctx.account.users.admin)
        .executeTakeFirstOrThrow()
    ).email;
    browser = await launchBrowser({ viewport: { width: 1100, height: 760 } });
  });
  after(async () => {
    await browser?.close();
  });

  it('an admin edits the offer text from the company profile; a wrong placeholder is named at its field', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${base}/console/company`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/console/company`);
    await page.getByRole('link', { name: /E-mail texts of invoices/ }).click();
    await page.waitForURL(`${base}/console/company/mail-templates`);
    assert.equal(await page.title(), 'E-mail texts · Project and Invoicing');
    await shot(page, 'console-mail-templates.png');

    const offer = page.getByRole('region', { name: /^Offer/ }).last();
    await offer.getByLabel('Subject').fill('Quote {offer_number} – {nummer}');
    await offer.getByLabel('Text').fill('Dear {client_name},\n\nplease find our quote attached.');
    await page.getByRole('button', { name: 'Save e-mail texts' }).click();
    await page.waitForLoadState();
    const subject = page.locator('#t-en-offer-subject');
    assert.equal(await subject.getAttribute('aria-invalid'), 'true');
    assert.match(
      await page.locator('#t-en-offer-subject-error').innerText(),
      /Unknown placeholder \{nummer\}/,
    );
    assert.match(await page.getByRole('alert').innerText(), /English, Offer, Subject: Unknown placeholder/);
    assert.equal(await subject.inputValue(), 'Quote {offer_number} – {nummer}', 'what was typed stays');
    assert.deepEqual(await own(), [], 'nothing saved');
    await shot(page, 'console-mail-templates-error.png');

    await subject.fill('Quote {offer_number}');
    await page.getByRole('button', { name: 'Save e-mail texts' }).click();
    await page.waitForURL(`${base}/console/company/mail-templates?saved`);
    assert.equal(await page.getByRole('status').innerText(), 'Saved.');
    assert.deepEqual(
      (await own()).map((t) => [t.language, t.kind, t.subject, t.body]),
      [['en', 'offer', 'Quote {offer_number}', 'Dear {client_name},\n\nplease find our quote attached.']],
    );
    assert.match(await page.locator('#t-en-offer-title').innerText(), /Your own text/);

    // Back to the service's text with the checkbox.
    await page.getByLabel('Use the service’s text again').check();
    await page.getByRole('button', { name: 'Save e-mail texts' }).click();
    await page.waitForURL(`${base}/console/company/mail-templates?saved`);
    assert.deepEqual(await own(), []);
    await page.close();
  });

  it('reads well on a phone', async () => {
    const phone = await launchBrowser({ viewport: { width: 390, height: 800 } });
    const page = await phone.context.newPage();
    await page.goto(`${base}/signin`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname !== '/signin');
    await page.goto(`${base}/console/company/mail-templates`);
    const width = Number(await page.evaluate('document.documentElement.scrollWidth'));
    assert.ok(width <= 390, `no sideways scrolling (${width}px)`);
    await shot(page, 'console-mail-templates-phone.png');
    await phone.close();
  });
});
