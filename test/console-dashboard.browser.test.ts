import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { importData } from '../src/import/index.js';
import { addClient, addEfforts, addProject } from './billing.fixtures.js';
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

describeEachDb('console dashboard in a real browser', (ctx) => {
  let base: string;
  let email: string;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  const numbers: string[] = [];
  const shot = screenshots(ctx.kind);

  before(async () => {
    base = await listen(ctx.app);
    email = await withPassword(ctx.db, ctx.account.users.admin);

    // Two invoices open and not yet due, two overdue (one with a payment reminder), one paid in
    // full, one draft (not counted).
    const api = await ctx.as([
      ...ALL_INVOICE_SCOPES,
      'incoming-invoice:write',
      'incoming-invoice:read',
      'dunning:write',
    ]);
    const client = await makeClient(api);
    for (const price of [1200, 800.5]) {
      const inv = await makeInvoice(api, {
        client_id: client,
        payment_term_days: 30,
        line_items: [line(price)],
      });
      numbers.push((await bookNow(api, inv.id)).invoice_number);
    }
    const late = await makeInvoice(api, {
      client_id: client,
      date: new Date(Date.now() - 60 * 86400_000).toISOString().slice(0, 10),
      payment_term_days: 14,
      line_items: [line(250)],
    });
    numbers.push((await bookNow(api, late.id)).invoice_number);
    // Due three days ago: not dunned yet (the reminder comes seven days after the due date).
    const lately = await makeInvoice(api, {
      client_id: client,
      date: new Date(Date.now() - 17 * 86400_000).toISOString().slice(0, 10),
      payment_term_days: 14,
      line_items: [line(100)],
    });
    numbers.push((await bookNow(api, lately.id)).invoice_number);
    const paid = await makeInvoice(api, {
      client_id: client,
      payment_term_days: 30,
      line_items: [line(100)],
    });
    const booked = await bookNow(api, paid.id);
    numbers.push(booked.invoice_number);
    await importData(ctx.db, { payment_accounts: [{ name: 'Bank' }] }, { accountId: ctx.account.accountId });
    const bank = (await api.get('/payment-accounts')).body.data[0];
    const pay = await api.post('/payments/outgoing-invoice', {
      invoice_id: paid.id,
      payment_account_id: bank.id,
      amount: booked.gross_total,
      date: booked.date,
    });
    assert.equal(pay.status, 201, pay.text);
    await makeInvoice(api, { client_id: client, line_items: [line(999)] });
    const run = await api.post('/dunning/run', {});
    assert.deepEqual(
      run.body.data.created.map((l: any) => [l.invoice_id, l.level]),
      [[late.id, 1]],
      run.text,
    );

    // Incoming documents waiting for review: one being read, one unreadable, two entered by hand.
    const supplier = await api.post('/suppliers', { name: 'Paper & Co' });
    assert.equal(supplier.status, 201, supplier.text);
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await api.post('/incoming-invoices', {
        supplier_id: supplier.body.data.id,
        invoice_number: `P-${i}`,
        date: '2026-11-01',
        net_total: 10,
        tax_total: 1.9,
      });
      assert.equal(res.status, 201, res.text);
      ids.push(res.body.data.id);
    }
    await ctx.db
      .updateTable('incoming_invoices')
      .set({ extraction_status: 'pending' })
      .where('id', '=', ids[0]!)
      .execute();
    await ctx.db
      .updateTable('incoming_invoices')
      .set({ extraction_status: 'failed' })
      .where('id', '=', ids[1]!)
      .execute();
    // Time not invoiced yet: 1.5 h + 0.75 h at 100.00 (the non-billable hour does not count).
    const acc = ctx.account.accountId;
    const care = await addProject(ctx.db, acc, await addClient(ctx.db, acc, { name: 'Care Client' }), {
      name: 'Website care',
      hourly_rate: 10000,
    });
    await addEfforts(
      ctx.db,
      acc,
      [90, 45, 60].map((minutes, i) => ({
        project_id: care,
        task_id: null,
        user_id: ctx.account.users.member,
        date: '2026-11-02',
        minutes,
        billable: i < 2,
        type: 'work',
        hourly_rate: null,
      })),
    );
    browser = await launchBrowser({ viewport: { width: 1100, height: 760 } });
  });
  after(async () => {
    await browser?.close();
  });

  it('an admin signs in and lands on the dashboard: open and overdue invoices, documents to review, number series', async () => {
    const page = await browser.context.newPage();
    await openSignedIn(page, base, '/signin', email);
    assert.equal(page.url(), `${base}/console`, 'an admin lands on the dashboard');
    assert.equal(await page.title(), 'Dashboard · Project and Invoicing');
    const nav = page.getByRole('navigation', { name: 'Console' });
    for (const name of ['Dashboard', 'Company', 'Users', 'Integrations', 'Webhooks', 'Audit'])
      assert.equal(await nav.getByRole('link', { name, exact: true }).count(), 1, name);
    assert.equal(await nav.getByRole('link', { name: 'Dashboard' }).getAttribute('aria-current'), 'page');

    const open = page.getByRole('region', { name: 'Open invoices' });
    // 1428.00 + 952.60 + 297.50 + 119.00 gross.
    assert.match(await open.innerText(), /€2,797\.10\s+4 invoices/);
    const overdue = page.getByRole('region', { name: 'Overdue invoices' });
    assert.match(await overdue.innerText(), /€416\.50\s+2 invoices/);
    const byLevel = page.getByRole('region', { name: 'Overdue by dunning level' });
    assert.deepEqual(
      (await byLevel.getByRole('row').allInnerTexts()).map((r) => r.split(/\s*\t\s*|\n/).join(' | ')),
      ['Level | Invoices | Open amount', 'Not dunned yet | 1 | €119.00', 'Payment reminder | 1 | €297.50'],
    );
    const incoming = page.getByRole('region', { name: 'Incoming documents waiting for review' });
    assert.equal(await incoming.getByRole('row', { name: 'Being read 1' }).count(), 1);
    assert.equal(await incoming.getByRole('row', { name: 'Could not be read 1' }).count(), 1);
    assert.equal(await incoming.getByRole('row', { name: 'Not read (entered by hand) 2' }).count(), 1);
    const uninvoiced = page.getByRole('region', { name: 'Not invoiced yet' });
    assert.equal(
      await uninvoiced.getByRole('row', { name: 'Website care Care Client 2.25 €225.00' }).count(),
      1,
      await uninvoiced.innerText(),
    );
    const series = page.getByRole('region', { name: 'Number series' });
    // The last number of each year's series (the paid and the overdue one count; the draft has none).
    const text = await series.innerText();
    const lastOfYear = new Map<string, string>();
    for (const n of numbers.sort()) lastOfYear.set(n.slice(3, 7), n);
    for (const [year, last] of lastOfYear)
      assert.match(text, new RegExp(`Invoices\\s+${year}\\s+${last}\\s`));
    await shot(page, 'console-dashboard.png');

    // Keyboard: the first Tab reaches the skip link, which leads to the content.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate('document.activeElement?.textContent'), 'Skip to content');
    await page.keyboard.press('Enter');
    assert.equal(new URL(page.url()).hash, '#main');
    await page.close();
  });

  it('on a phone, in German, the navigation and the figures fit the screen', async () => {
    await onGermanPhone(browser, base, '/console', async (page) => {
      assert.equal(await page.title(), 'Übersicht · Projekte und Rechnungen');
      assert.match(
        await page.getByRole('region', { name: 'Offene Rechnungen' }).innerText(),
        /2\.797,10\s*€\s+4 Rechnungen/,
      );
      const byLevel = page.getByRole('region', { name: 'Überfällig nach Mahnstufe' });
      const rows = (await byLevel.getByRole('row').allInnerTexts()).map((r) => r.replace(/\s+/g, ' ').trim());
      assert.deepEqual(
        rows.slice(1),
        ['Noch nicht gemahnt 1 119,00 €', 'Zahlungserinnerung 1 297,50 €'],
        rows.join('|'),
      );
      await assertFitsScreen(page);
      await shot(page, 'console-dashboard-phone-de.png');
    });
  });
});
