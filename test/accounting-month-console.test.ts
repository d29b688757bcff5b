import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { unzipSync } from 'fflate';
import { setPassword } from '../src/modules/users/passwords.service.js';
import { describeEachDb } from './helpers.js';
import { ALL_INVOICE_SCOPES, bookNow, line, makeClient, makeInvoice } from './invoicing.fixtures.js';
import { Browser, pageError } from './web-client.js';

const PASSWORD = 'correct horse battery staple';

/** The cells of the page's table under the heading `id`, row by row, tags stripped. */
function table(body: string, id: string): string[][] {
  const start = body.indexOf(`aria-labelledby="${id}"`);
  const html = body.slice(start, body.indexOf('</table>', start));
  return [...html.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((r) =>
    [...r[1]!.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((c) =>
      c[1]!
        .replace(/<[^>]+>/g, '')
        .replace(/\s+/g, ' ')
        .trim(),
    ),
  );
}

describeEachDb('console: the month for the tax adviser (export, lock, VAT figures, ageing)', (ctx) => {
  let admin: Browser;
  let invoiceId: number;
  const email = async (id: number) =>
    (await ctx.db.selectFrom('users').select('email').where('id', '=', id).executeTakeFirstOrThrow()).email;
  before(async () => {
    await setPassword(ctx.db, ctx.account.users.admin, PASSWORD);
    await setPassword(ctx.db, ctx.account.users.member, PASSWORD);
    admin = new Browser(ctx.app);
    await admin.signIn(await email(ctx.account.users.admin), PASSWORD);
    const api = await ctx.as(ALL_INVOICE_SCOPES);
    const client = await makeClient(api, { name: 'Kunde Süd' });
    const inv = await makeInvoice(api, {
      client_id: client,
      date: '2026-10-05',
      payment_term_days: 14,
      line_items: [line(100), line(50, { tax_rate: 7 })],
    });
    invoiceId = (await bookNow(api, inv.id)).id;
  });

  it('a member may not see it; an admin sees the month’s VAT figures and ageing', async () => {
    const member = new Browser(ctx.app);
    await member.signIn(await email(ctx.account.users.member), PASSWORD);
    assert.equal((await member.get('/console/accounting?month=2026-10')).status, 403);
    assert.equal((await new Browser(ctx.app).get('/console/accounting')).status, 303, 'sign in first');

    const page = await admin.get('/console/accounting?month=2026-10');
    assert.equal(page.status, 200, page.body);
    assert.match(page.body, /<a href="\/console\/accounting" aria-current="page">Accounting<\/a>/);
    assert.match(page.body, /Open: documents dated in it/);
    // 100.00 at 19 %, 50.00 at 7 %; 19.00 + 3.50 due.
    assert.deepEqual(table(page.body, 'vat-title').slice(1), [
      ['81', 'Taxable supplies at 19 %', '100.00', '19.00', '1'],
      ['86', 'Taxable supplies at 7 %', '50.00', '3.50', '1'],
      ['83', 'VAT due (negative: refund)', '–', '22.50', '0'],
    ]);
    // Due on 19 October, 12 days overdue on the 31st.
    assert.deepEqual(table(page.body, 'ageing-title').slice(1), [
      ['Receivables', '0.00', '172.50', '0.00', '0.00', '0.00', '172.50'],
      ['Payables', '0.00', '0.00', '0.00', '0.00', '0.00', '0.00'],
    ]);
    assert.equal((await admin.get('/console/accounting?month=2026-13')).status, 422);
  });

  it('exports the month (422 until the DATEV numbers are set) and downloads the ZIP', async () => {
    await admin.get('/console/accounting?month=2026-10');
    const refused = await admin.post('/console/accounting/export', { month: '2026-10' });
    assert.equal(refused.status, 422);
    assert.match(pageError(refused) ?? '', /DATEV consultant and client number/);
    assert.equal(await ctx.db.selectFrom('datev_exports').select('id').executeTakeFirst(), undefined);

    const api = await ctx.as('account:write');
    await api.patch('/account/profile', {
      accounting: { datev_consultant_number: 1001, datev_client_number: 5 },
    });
    const done = await admin.post('/console/accounting/export', { month: '2026-10', documents: '1' });
    assert.equal(done.status, 303, done.body);
    assert.match(done.location ?? '', /^\/console\/accounting\?month=2026-10&done=exported#export-\d+$/);
    const page = await admin.get(done.location!.split('#')[0]!);
    assert.match(page.body, /The export is written\./);
    const href = /href="(\/console\/accounting\/exports\/\d+\/download)"/.exec(page.body)?.[1];
    assert.ok(href, 'a download link');
    const zip = await ctx.app.inject({ method: 'GET', url: href, headers: { cookie: admin.cookieHeader } });
    assert.equal(zip.statusCode, 200);
    assert.equal(zip.headers['content-type'], 'application/zip');
    const files = Object.keys(unzipSync(new Uint8Array(zip.rawPayload))).sort();
    assert.equal(files.length, 4, files.join());
    assert.ok(files.includes('document.xml'));
    assert.ok(files.some((f) => f.startsWith(`AR_${invoiceId}_`)));
    // Another account's export is not found here.
    const other = await ctx.as('accounting:export', { accountId: ctx.other.accountId });
    await (await ctx.as('account:write', { accountId: ctx.other.accountId })).patch('/account/profile', {
      accounting: { datev_consultant_number: 1001, datev_client_number: 6 },
    });
    const theirs = await other.post('/exports/datev', { date_from: '2026-10-01', date_to: '2026-10-31' });
    const foreign = await ctx.app.inject({
      method: 'GET',
      url: `/console/accounting/exports/${theirs.body.data.id}/download`,
      headers: { cookie: admin.cookieHeader },
    });
    assert.equal(foreign.statusCode, 404);
  });

  it('locks the month only when confirmed; then it says so and offers no lock', async () => {
    await admin.get('/console/accounting?month=2026-10');
    const unconfirmed = await admin.post('/console/accounting/lock', { month: '2026-10' });
    assert.equal(unconfirmed.status, 422);
    assert.match(pageError(unconfirmed) ?? '', /Tick the box/);
    assert.equal(
      await ctx.db.selectFrom('accounting_period_locks').select('period').executeTakeFirst(),
      undefined,
    );
    assert.equal(
      (await admin.post('/console/accounting/lock', { month: '2999-01', confirm: '1' })).status,
      422,
    );
    assert.equal(
      (await admin.post('/console/accounting/lock', { month: '2026-10', confirm: '1', _csrf: 'x' })).status,
      403,
    );

    const locked = await admin.post('/console/accounting/lock', { month: '2026-10', confirm: '1' });
    assert.equal(locked.status, 303, locked.body);
    const page = await admin.get(locked.location!);
    assert.match(page.body, /The month is locked\./);
    assert.match(page.body, /Locked on \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\./);
    assert.doesNotMatch(page.body, /action="\/console\/accounting\/lock"/);
    const audit = await ctx.db
      .selectFrom('audit_log')
      .select(['actor_kind', 'actor_user_id', 'target_id'])
      .where('action', '=', 'accounting_period.lock')
      .execute();
    assert.deepEqual(audit, [
      { actor_kind: 'user', actor_user_id: ctx.account.users.admin, target_id: '2026-10' },
    ]);
  });
});
