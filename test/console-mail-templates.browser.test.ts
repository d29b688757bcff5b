import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { listTemplates } from '../src/modules/mail/mail.public.js';
import { launchBrowser, listen, openSignedIn, screenshots, withPassword } from './browser.js';
import { describeEachDb } from './helpers.js';

describeEachDb('console e-mail texts in a real browser', (ctx) => {
  let base: string;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let email = '';
  const shot = screenshots(ctx.kind);
  const own = async () =>
    (
      await listTemplates(ctx.db, { accountId: ctx.account.accountId, userId: ctx.account.users.admin })
    ).filter((t) => !t.built_in);

  before(async () => {
    base = await listen(ctx.app);
    email = await withPassword(ctx.db, ctx.account.users.admin);
    browser = await launchBrowser({ viewport: { width: 1100, height: 760 } });
  });
  after(async () => {
    await browser?.close();
  });

  it('an admin edits the offer text from the company profile; a wrong placeholder is named at its field', async () => {
    const page = await browser.context.newPage();
    await openSignedIn(page, base, '/console/company', email);
    assert.equal(page.url(), `${base}/console/company`);
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
    await openSignedIn(page, base, '/signin', email);
    await page.goto(`${base}/console/company/mail-templates`);
    const width = Number(await page.evaluate('document.documentElement.scrollWidth'));
    assert.ok(width <= 390, `no sideways scrolling (${width}px)`);
    await shot(page, 'console-mail-templates-phone.png');
    await phone.close();
  });
});
