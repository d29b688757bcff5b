import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { launchBrowser, listen, screenshots, signIn, withPassword } from './browser.js';
import { describeEachDb } from './helpers.js';

describeEachDb('console integrations page in a real browser', (ctx) => {
  let base: string;
  let adminEmail: string;
  let memberEmail: string;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  const shot = screenshots(ctx.kind);

  before(async () => {
    base = await listen(ctx.app);
    adminEmail = await withPassword(ctx.db, ctx.account.users.admin);
    memberEmail = await withPassword(ctx.db, ctx.account.users.member);
    browser = await launchBrowser({ viewport: { width: 1100, height: 700 } });
  });
  after(async () => {
    await browser?.close();
  });

  it('creates an integration with permissions in plain words; the token works and is shown once', async () => {
    const page = await browser.context.newPage();
    await signIn(page, base, adminEmail, '/console/integrations');
    assert.equal(await page.title(), 'Integrations · Project and Invoicing');
    await page.getByLabel('Name').fill('Bookkeeping export');
    await page.getByRole('checkbox', { name: /^See clients / }).check();
    await page.getByLabel('See outgoing invoices and their PDFs').check();
    await page.getByRole('button', { name: 'Create integration' }).click();
    await page.waitForLoadState();
    assert.equal(await page.title(), 'Bookkeeping export is created · Project and Invoicing');
    const token = await page.getByLabel('Personal access token', { exact: true }).inputValue();
    assert.match(token, /^pat_/);
    assert.match(await page.getByLabel('Client secret').inputValue(), /^cs_/);
    const res = await fetch(`${base}/api/v1/integration`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.status, 200);
    const info = (await res.json()) as { data: { scopes: string[] } };
    assert.deepEqual(info.data.scopes, ['client:read', 'outgoing-invoice:read']);

    // An OAuth app with a redirect URI, then the list.
    await page.goto(`${base}/console/integrations`);
    await page.getByLabel('Name').fill('Time tracker (OAuth)');
    await page.getByLabel('See projects, tasks and comments').check();
    await page.getByLabel('Redirect URIs (OAuth apps only)').fill('https://time.example.com/oauth/callback');
    await page.getByRole('button', { name: 'Create integration' }).click();
    await page.waitForLoadState();
    await page.getByRole('link', { name: 'Integrations', exact: true }).last().click();
    await page.waitForURL(`${base}/console/integrations`);
    assert.ok(await page.getByRole('link', { name: 'Bookkeeping export' }).isVisible());
    assert.ok(await page.getByText('https://time.example.com/oauth/callback').isVisible());
    assert.equal(await page.getByText(token).count(), 0, 'the token is not shown again');
    await shot(page, 'console-integrations.png');

    // Its page: a new token, then revoke the integration.
    await page.getByRole('link', { name: 'Bookkeeping export' }).click();
    await page.getByRole('button', { name: 'Create a new token' }).click();
    await page.waitForLoadState();
    assert.match(await page.getByLabel('Personal access token', { exact: true }).inputValue(), /^pat_/);
    await page.getByRole('button', { name: 'Revoke: Bookkeeping export' }).click();
    await page.waitForURL(`${base}/console/integrations?done=revoked`);
    const after = await fetch(`${base}/api/v1/integration`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(after.status, 401);
    await page.close();
  });

  it('a member is refused; a form with a forged token is refused', async () => {
    const member = await launchBrowser();
    try {
      const page = await member.context.newPage();
      await signIn(page, base, memberEmail, '/console/password');
      await page.goto(`${base}/console/integrations`);
      assert.match((await page.getByRole('alert').textContent()) ?? '', /for administrators of the account/);
    } finally {
      await member.close();
    }
    const page = await browser.context.newPage();
    await page.goto(`${base}/console/integrations`);
    const before = (await ctx.db.selectFrom('integrations').select('id').execute()).length;
    await page.locator('form[action="/console/integrations"] input[name="_csrf"]').evaluate((e) => {
      (e as unknown as { value: string }).value = 'forged';
    });
    await page.getByLabel('Name').fill('Forged');
    await page.getByRole('checkbox', { name: /^See clients / }).check();
    await page.getByRole('button', { name: 'Create integration' }).click();
    await page.waitForLoadState();
    assert.match(
      (await page.getByRole('alert').textContent()) ?? '',
      /form has expired or was not sent from this site/,
    );
    assert.equal((await ctx.db.selectFrom('integrations').select('id').execute()).length, before);
    await page.close();
  });
});
