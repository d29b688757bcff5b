import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import {
  assertFitsScreen,
  launchBrowser,
  listen,
  onGermanPhone,
  openSignedIn,
  screenshots,
  withPassword,
} from './browser.js';
import { describeEachDb } from './helpers.js';
import { ALL_INVOICE_SCOPES, bookNow, line, makeClient, makeInvoice } from './invoicing.fixtures.js';

describeEachDb('console month page in a real browser', (ctx) => {
  let base: string;
  let email: string;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  const shot = screenshots(ctx.kind);

  before(async () => {
    base = await listen(ctx.app);
    email = await withPassword(ctx.db, ctx.account.users.admin);
    const api = await ctx.as([...ALL_INVOICE_SCOPES, 'account:write']);
    await api.patch('/account/profile', {
      accounting: { datev_consultant_number: 1001, datev_client_number: 9 },
    });
    const client = await makeClient(api, { name: 'Bäckerei Groß' });
    for (const [date, price, rate] of [
      ['2026-10-02', 1200, 19],
      ['2026-10-14', 480, 7],
      ['2026-08-20', 300, 19],
    ] as const) {
      const inv = await makeInvoice(api, {
        client_id: client,
        date,
        payment_term_days: 14,
        line_items: [line(price, { tax_rate: rate })],
      });
      await bookNow(api, inv.id);
    }
    browser = await launchBrowser({ viewport: { width: 1100, height: 760 } });
  });
  after(async () => {
    await browser?.close();
  });

  it('an admin picks October, writes and downloads the export, sees the figures, locks it after confirming', async () => {
    const page = await browser.context.newPage();
    await openSignedIn(page, base, '/signin', email);
    assert.equal(page.url(), `${base}/console`, 'an admin lands on the dashboard');
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Accounting' }).click();
    await page.getByLabel('Month', { exact: true }).fill('2026-10');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(`${base}/console/accounting?month=2026-10`);
    assert.equal(await page.title(), 'Accounting · Project and Invoicing');

    const vat = page.getByRole('region', { name: 'VAT return figures' });
    const rows = (await vat.getByRole('row').allInnerTexts()).map((r) => r.replace(/\s+/g, ' ').trim());
    assert.deepEqual(rows.slice(1), [
      '81 Taxable supplies at 19 % 1,200.00 228.00 1',
      '86 Taxable supplies at 7 % 480.00 33.60 1',
      '83 VAT due (negative: refund) – 261.60 0',
    ]);
    const ageing = page.getByRole('region', { name: 'Open items at the end of the month' });
    assert.match(
      await ageing.innerText(),
      /Receivables\s+0\.00\s+1,941\.60\s+357\.00\s+0\.00\s+0\.00\s+2,298\.60/,
    );

    await page.getByLabel('With the documents (PDFs and document.xml)').check();
    await page.getByRole('button', { name: 'Write the export' }).click();
    await page.waitForURL(/done=exported/);
    assert.equal(await page.getByRole('status').innerText(), 'The export is written.');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: /^Download \(\d+ KiB\)$/ }).click(),
    ]);
    assert.match(download.suggestedFilename(), /^DATEV_2026-10-01_2026-10-31\.zip$/);

    // The lock asks for a confirmation first: the browser will not submit without the tick.
    await page.getByRole('button', { name: 'Lock 2026-10' }).click();
    assert.equal(page.url().includes('done=locked'), false);
    await shot(page, 'console-accounting.png');
    await page.getByLabel('I have checked the month; lock it for good.').check();
    await page.getByRole('button', { name: 'Lock 2026-10' }).click();
    await page.waitForURL(/done=locked/);
    assert.match(await page.getByRole('region', { name: 'Status 2026-10' }).innerText(), /Locked on/);
    assert.equal(await page.getByRole('button', { name: 'Lock 2026-10' }).count(), 0);
    await shot(page, 'console-accounting-locked.png');
    await page.close();
  });

  it('on a phone, in German, the month page fits the screen', async () => {
    await onGermanPhone(browser, base, '/console/accounting?month=2026-10', async (page) => {
      assert.equal(await page.title(), 'Buchhaltung · Projekte und Rechnungen');
      assert.match(
        await page.getByRole('region', { name: 'Umsatzsteuer-Voranmeldung' }).innerText(),
        /Steuerpflichtige Umsätze zu 19 %/,
      );
      assert.match(
        await page.getByRole('region', { name: 'Status 2026-10' }).innerText(),
        /Festgeschrieben am/,
      );
      await assertFitsScreen(page);
      await shot(page, 'console-accounting-phone-de.png');
    });
  });
});
