import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, it } from 'node:test';
import { getAccountProfile } from '../src/modules/account/account.service.js';
import { launchBrowser, listen, openSignedIn, screenshots, withPassword } from './browser.js';
import { describeEachDb } from './helpers.js';

describeEachDb('console company profile and audit in a real browser', (ctx) => {
  let base: string;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let evil: Server;
  let evilBase: string;
  const emails: Record<'admin' | 'member', string> = { admin: '', member: '' };
  const shot = screenshots(ctx.kind);

  before(async () => {
    base = await listen(ctx.app);
    for (const who of ['admin', 'member'] as const) {
      emails[who] = await withPassword(ctx.db, ctx.account.users[who]);
    }
    // Another site (another origin) whose page posts a form to the console.
    evil = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(`<!doctype html><form method="post" action="${base}/console/company">
        <input name="name" value="Hijacked Ltd"><input name="city" value="Evil"><button>Win a prize</button></form>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    const ea = evil.address();
    assert.ok(ea && typeof ea === 'object');
    // Same site (the cookie goes along, SameSite=Lax does not help), another origin: the CSRF check must.
    evilBase = `http://127.0.0.1:${ea.port}`;
    browser = await launchBrowser({ viewport: { width: 1100, height: 760 } });
  });
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => evil?.close(resolve));
  });

  it('an admin sets the company profile: a wrong IBAN is named next to its field, the fixed form is saved', async () => {
    const page = await browser.context.newPage();
    await openSignedIn(page, base, '/console/company', emails.admin);
    assert.equal(new URL(page.url()).pathname, '/console/company');
    assert.equal(await page.title(), 'Company profile · Project and Invoicing');
    await page.getByLabel('Legal name').fill('Nordlicht Design GmbH');
    await page.getByLabel('Street and number').fill('Hafenstraße 12');
    await page.getByLabel('Postal code').fill('20457');
    await page.getByLabel('City').fill('Hamburg');
    await page.getByLabel('Country').selectOption('DE');
    await page.getByLabel('IBAN').fill('DE89 3704 0044 0532 0130 01');
    await page.getByLabel('Text above the items').fill('Thank you for your order. We invoice as follows:');
    await page.getByLabel('Days to pay').fill('14');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.waitForLoadState();

    const iban = page.getByLabel('IBAN');
    assert.equal(await iban.getAttribute('aria-invalid'), 'true');
    const describedBy = (await iban.getAttribute('aria-describedby')) ?? '';
    assert.match(describedBy, /f-iban-error/);
    assert.match(await page.locator('#f-iban-error').innerText(), /is not a valid IBAN/);
    assert.match(await page.getByRole('alert').innerText(), /Please correct the marked fields/);
    assert.equal(await page.getByLabel('City').inputValue(), 'Hamburg', 'what was typed stays');
    assert.equal((await getAccountProfile(ctx.db, ctx.account.accountId)).city, 'Berlin', 'nothing saved');

    // The error summary leads to the field by keyboard.
    await page.getByRole('link', { name: /IBAN: / }).focus();
    await page.keyboard.press('Enter');
    await iban.fill('DE89 3704 0044 0532 0130 00');
    await iban.press('Enter');
    await page.waitForURL(`${base}/console/company?saved`);
    assert.equal(await page.getByRole('status').innerText(), 'Saved.');
    assert.equal(await page.getByLabel('IBAN').inputValue(), 'DE89370400440532013000');
    const p = await getAccountProfile(ctx.db, ctx.account.accountId);
    assert.equal(p.name, 'Nordlicht Design GmbH');
    assert.equal(p.payment_term_days, 14);
    await shot(page, 'console-profile.png');
    await page.close();
  });

  it('the audit page shows who changed what and when', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${base}/console`);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Audit' }).click();
    await page.waitForURL(`${base}/console/audit`);
    const row = page.getByRole('row').filter({ hasText: 'account.profile_update' }).first();
    const text = await row.innerText();
    assert.match(text, /Ada Admin/);
    assert.match(text, /in the console/);
    assert.match(text, /Company profile changed/);
    assert.match(text, /changed: name, street, zip, city, iban, invoice_intro_text, payment_term_days/);
    assert.match(text, /\d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    await shot(page, 'console-audit.png');
    await page.close();
  });

  it('a member is refused the admin pages; a form posted from another site is refused and changes nothing', async () => {
    const memberBrowser = await launchBrowser();
    try {
      const page = await memberBrowser.context.newPage();
      await openSignedIn(page, base, '/signin', emails.member);
      assert.equal(new URL(page.url()).pathname, '/me', 'a member lands on their own page');
      for (const path of ['/console/company', '/console/audit']) {
        const res = await page.goto(`${base}${path}`);
        assert.equal(res?.status(), 403, path);
        assert.match(await page.getByRole('alert').innerText(), /This page is for administrators/);
      }
    } finally {
      await memberBrowser.close();
    }

    // The admin, still signed in, visits the other site and submits its form.
    const page = await browser.context.newPage();
    await page.goto(evilBase);
    await page.getByRole('button', { name: 'Win a prize' }).click();
    await page.waitForLoadState();
    assert.equal(new URL(page.url()).origin, base);
    assert.match(
      await page.locator('main').innerText(),
      /The form has expired or was not sent from this site|not allowed|Sign in/i,
    );
    // And a console form whose token was tampered with.
    await page.goto(`${base}/console/company`);
    await page.locator('form.wide input[name="_csrf"]').evaluate((el) => {
      (el as unknown as { value: string }).value = 'forged';
    });
    await page.getByLabel('City').fill('Tampered');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.waitForLoadState();
    assert.match(
      await page.getByRole('alert').innerText(),
      /The form has expired or was not sent from this site/,
    );
    const p = await getAccountProfile(ctx.db, ctx.account.accountId);
    assert.equal(p.name, 'Nordlicht Design GmbH');
    assert.equal(p.city, 'Hamburg');
    await page.close();
  });
});
