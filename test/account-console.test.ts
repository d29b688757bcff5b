import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { getAccountProfile } from '../src/modules/account/account.service.js';
import { listAuditEntries } from '../src/modules/audit/audit.service.js';
import { setPassword } from '../src/modules/users/passwords.service.js';
import { PNG } from './account.fixtures.js';
import { describeEachDb, multipart } from './helpers.js';
import { Browser } from './web-client.js';

const PASSWORD = 'correct horse battery staple';

/** The form's current values as the page shows them, to post back changed. */
function formOf(body: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of body.matchAll(/<input id="f-[^"]+" name="([^"]+)" type="[^"]+"[^>]*? value="([^"]*)"/g))
    out[m[1]!] = m[2]!
      .replace(/&amp;/g, '&')
      .replace(/&#39;/g, "'")
      .replace(/&quot;/g, '"');
  const country = /<option value="([A-Z]{2})" selected>/.exec(body);
  if (country) out.country_code = country[1]!;
  if (/name="service_date_defaults_to_invoice_date" checked/.test(body))
    out.service_date_defaults_to_invoice_date = 'on';
  return out;
}

describeEachDb('console: company profile page', (ctx) => {
  let admin: Browser;
  before(async () => {
    await setPassword(ctx.db, ctx.account.users.admin, PASSWORD);
    await setPassword(ctx.db, ctx.account.users.member, PASSWORD);
    const email = async (id: number) =>
      (await ctx.db.selectFrom('users').select('email').where('id', '=', id).executeTakeFirstOrThrow()).email;
    admin = new Browser(ctx.app);
    await admin.signIn(await email(ctx.account.users.admin), PASSWORD);
    (ctx as unknown as { memberEmail: string }).memberEmail = await email(ctx.account.users.member);
  });

  it('shows every field with its label; saving changes the profile and audits it as a console action', async () => {
    const page = await admin.get('/console/company');
    assert.equal(page.status, 200);
    for (const label of [
      'Legal name',
      'IBAN',
      'BIC',
      'VAT ID',
      'Tax number',
      'Days to pay',
      'Invoice numbers',
      'Logo file',
    ])
      assert.match(page.body, new RegExp(`<label for="[^"]+"[^>]*>${label}`), label);
    const form = formOf(page.body);
    assert.equal(form.iban, 'DE02120300000000202051');
    assert.equal(form.country_code, 'DE');
    const saved = await admin.post('/console/company', { ...form, city: 'Potsdam', payment_term_days: '30' });
    assert.equal(saved.status, 303);
    assert.equal(saved.location, '/console/company?saved');
    assert.match(
      (await admin.get('/console/company?saved')).body,
      /<p class="notice" role="status">Saved\.<\/p>/,
    );
    const p = await getAccountProfile(ctx.db, ctx.account.accountId);
    assert.equal(p.city, 'Potsdam');
    assert.equal(p.payment_term_days, 30);
    assert.equal(p.service_date_defaults_to_invoice_date, true, 'the checkbox was kept');
    const entry = (await listAuditEntries(ctx.db, ctx.account.accountId)).entries[0]!;
    assert.equal(entry.action, 'account.profile_update');
    assert.equal(entry.actor_kind, 'user');
    assert.equal(entry.actor_user_id, ctx.account.users.admin);
    assert.deepEqual(entry.detail, { changed: ['city', 'payment_term_days'] });
  });

  it('wrong fields: 422, each message next to its field, the typed values kept, nothing saved', async () => {
    const form = formOf((await admin.get('/console/company')).body);
    const res = await admin.post('/console/company', {
      ...form,
      iban: 'DE89 3704 0044 0532 0130 01',
      vat_id: 'DE1234',
      payment_term_days: 'soon',
      city: 'Nowhere',
    });
    assert.equal(res.status, 422);
    assert.match(res.body, /id="f-iban"[^>]*aria-invalid="true"/);
    assert.match(
      res.body,
      /<p class="field-error" id="f-iban-error">&quot;DE89 3704 0044 0532 0130 01&quot; is not a valid IBAN/,
    );
    assert.match(res.body, /<p class="field-error" id="f-vat_id-error">[^<]*format of a VAT id of DE/);
    assert.match(res.body, /<p class="field-error" id="f-payment_term_days-error">Must be a whole number/);
    assert.match(res.body, /value="Nowhere"/, 'what was typed stays');
    assert.match(res.body, /role="alert"/);
    assert.equal((await getAccountProfile(ctx.db, ctx.account.accountId)).city, 'Potsdam');

    const de = new Browser(ctx.app, { lang: 'de' });
    de.jar.set('sid', admin.jar.get('sid')!);
    await de.get('/console/company');
    const german = await de.post('/console/company', { ...form, bic: 'XX' });
    assert.equal(german.status, 422);
    assert.match(german.body, /Keine gültige BIC/);
  });

  it('a forged form is refused and changes nothing; a member is refused the page and the form', async () => {
    const form = formOf((await admin.get('/console/company')).body);
    const forged = await admin.post('/console/company', { ...form, _csrf: 'x'.repeat(43), city: 'Evil' });
    assert.equal(forged.status, 403);
    const crossSite = await admin.post(
      '/console/company',
      { ...form, city: 'Evil' },
      { origin: 'https://evil.example' },
    );
    assert.equal(crossSite.status, 403);
    assert.equal((await getAccountProfile(ctx.db, ctx.account.accountId)).city, 'Potsdam');

    const member = new Browser(ctx.app);
    await member.signIn((ctx as unknown as { memberEmail: string }).memberEmail, PASSWORD);
    const page = await member.get('/console/company');
    assert.equal(page.status, 403);
    const post = await member.post('/console/company', { ...form, city: 'Member' });
    assert.equal(post.status, 403);
    assert.equal((await getAccountProfile(ctx.db, ctx.account.accountId)).city, 'Potsdam');
  });

  it('logo: uploaded through the form, shown, refused when not an image, removed', async () => {
    const before = await admin.get('/console/company');
    assert.equal(before.status, 200, before.body.slice(0, 300));
    const up = await multipart({ name: 'logo.png', type: 'image/png', data: PNG }, { _csrf: admin.csrf() });
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/console/company/logo',
      headers: { cookie: admin.cookieHeader, ...up.headers },
      payload: up.body,
    });
    assert.equal(res.statusCode, 303, res.body);
    const page = await admin.get('/console/company');
    assert.match(page.body, /<img class="logo-preview" src="\/console\/company\/logo\?v=/);
    const token = admin.csrf();
    const img = await admin.get('/console/company/logo');
    assert.equal(img.headers['content-type'], 'image/png');

    const bad = await multipart(
      { name: 'x.png', type: 'image/png', data: Buffer.from('no image') },
      { _csrf: token },
    );
    const refused = await ctx.app.inject({
      method: 'POST',
      url: '/console/company/logo',
      headers: { cookie: admin.cookieHeader, ...bad.headers },
      payload: bad.body,
    });
    assert.equal(refused.statusCode, 422);
    assert.match(refused.body, /not a PNG or JPEG image/);
    const noToken = await multipart({ name: 'logo.png', type: 'image/png', data: PNG });
    const forged = await ctx.app.inject({
      method: 'POST',
      url: '/console/company/logo',
      headers: { cookie: admin.cookieHeader, ...noToken.headers },
      payload: noToken.body,
    });
    assert.equal(forged.statusCode, 403);

    await admin.get('/console/company');
    assert.equal((await admin.post('/console/company/logo/remove')).status, 303);
    assert.equal((await getAccountProfile(ctx.db, ctx.account.accountId)).logo, null);
  });
});
