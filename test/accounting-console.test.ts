import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { getAccountProfile } from '../src/modules/account/account.service.js';
import { setPassword } from '../src/modules/users/passwords.service.js';
import { describeEachDb } from './helpers.js';
import { Browser } from './web-client.js';

/** The text inputs and selects of the page's profile form, as the browser would post them. */
function formOf(body: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of body.matchAll(/<input id="f-[^"]+" name="([^"]+)" type="[^"]+"[^>]*? value="([^"]*)"/g))
    out[m[1]!] = m[2]!
      .replace(/&amp;/g, '&')
      .replace(/&#39;/g, "'")
      .replace(/&quot;/g, '"');
  for (const m of body.matchAll(/<select id="f-[^"]+" name="([^"]+)"[^>]*>([\s\S]*?)<\/select>/g)) {
    const selected = /<option value="([^"]*)" selected>/.exec(m[2]!);
    if (selected) out[m[1]!] = selected[1]!;
  }
  return out;
}

describeEachDb('console: accounting settings on the company profile page', (ctx) => {
  let admin: Browser;
  before(async () => {
    await setPassword(ctx.db, ctx.account.users.admin, 'correct horse battery staple');
    const { email } = await ctx.db
      .selectFrom('users')
      .select('email')
      .where('id', '=', ctx.account.users.admin)
      .executeTakeFirstOrThrow();
    admin = new Browser(ctx.app);
    await admin.signIn(email, 'correct horse battery staple');
  });

  it('shows the DATEV settings and saves them; accounts not changed follow the chart', async () => {
    const page = await admin.get('/console/company');
    assert.equal(page.status, 200);
    for (const label of ['DATEV consultant number', 'Chart of accounts', 'VAT method', 'Revenue 19 %'])
      assert.match(page.body, new RegExp(`<label for="[^"]+"[^>]*>${label}`), label);
    const form = formOf(page.body);
    assert.equal(form['accounting.chart'], 'SKR03');
    assert.equal(form['accounting.accounts.revenue_19'], '8400');
    const saved = await admin.post('/console/company', {
      ...form,
      'accounting.datev_consultant_number': '1001',
      'accounting.datev_client_number': '7',
      'accounting.chart': 'SKR04',
      'accounting.vat_method': 'cash',
      'accounting.accounts.bank': '1810',
    });
    assert.equal(saved.status, 303, saved.body);
    const a = (await getAccountProfile(ctx.db, ctx.account.accountId)).accounting;
    assert.deepEqual(
      [
        a.datev_consultant_number,
        a.datev_client_number,
        a.chart,
        a.vat_method,
        a.accounts.revenue_19,
        a.accounts.bank,
      ],
      [1001, 7, 'SKR04', 'cash', '4400', '1810'],
    );
  });

  it('a wrong value: 422 with the message next to its field, nothing saved', async () => {
    const form = formOf((await admin.get('/console/company')).body);
    const res = await admin.post('/console/company', { ...form, 'accounting.datev_consultant_number': '12' });
    assert.equal(res.status, 422);
    assert.match(
      res.body,
      /id="f-accounting-datev_consultant_number-error"[^>]*>Must be a whole number from 1001/,
    );
    assert.equal(
      (await getAccountProfile(ctx.db, ctx.account.accountId)).accounting.datev_consultant_number,
      1001,
    );
  });
});
