import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { listTemplates } from '../src/modules/mail/mail.public.js';
import { setPassword } from '../src/modules/users/passwords.service.js';
import { describeEachDb } from './helpers.js';
import { Browser } from './web-client.js';

const PASSWORD = 'correct horse battery staple';
const PAGE = '/console/company/mail-templates';

const unescapeHtml = (s: string) =>
  s
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** The form's subjects and texts as the page shows them, to post back changed. */
function formOf(body: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of body.matchAll(
    /<input id="t-[^"]+" name="([^"]+\.subject)" type="text"[^>]*? value="([^"]*)"/g,
  ))
    out[m[1]!] = unescapeHtml(m[2]!);
  for (const m of body.matchAll(/<textarea id="t-[^"]+" name="([^"]+\.body)"[^>]*>([^<]*)<\/textarea>/g))
    out[m[1]!] = unescapeHtml(m[2]!);
  return out;
}

describeEachDb('console: e-mail texts page', (ctx) => {
  let admin: Browser;
  let memberEmail: string;
  const email = async (id: number) =>
    (await ctx.db.selectFrom('users').select('email').where('id', '=', id).executeTakeFirstOrThrow()).email;
  const own = async () =>
    (await listTemplates(ctx.db, { accountId: ctx.account.accountId, userId: ctx.account.users.admin }))
      .filter((t) => !t.built_in)
      .map((t) => `${t.language}/${t.kind}: ${t.subject} | ${t.body}`);

  before(async () => {
    await setPassword(ctx.db, ctx.account.users.admin, PASSWORD);
    await setPassword(ctx.db, ctx.account.users.member, PASSWORD);
    admin = new Browser(ctx.app);
    await admin.signIn(await email(ctx.account.users.admin), PASSWORD);
    memberEmail = await email(ctx.account.users.member);
  });

  it('lists every language and kind with its placeholders; the profile page links to it', async () => {
    const profile = await admin.get('/console/company');
    assert.match(profile.body, /<a href="\/console\/company\/mail-templates">E-mail texts of invoices/);
    const page = await admin.get(PAGE);
    assert.equal(page.status, 200);
    assert.match(page.body, /<h1>E-mail texts<\/h1>/);
    const form = formOf(page.body);
    assert.deepEqual(Object.keys(form).sort(), [
      'de-credit.body',
      'de-credit.subject',
      'de-invoice.body',
      'de-invoice.subject',
      'de-offer.body',
      'de-offer.subject',
      'en-credit.body',
      'en-credit.subject',
      'en-invoice.body',
      'en-invoice.subject',
      'en-offer.body',
      'en-offer.subject',
    ]);
    assert.equal(form['en-offer.subject'], 'Offer {offer_number} from {company_name}');
    assert.match(form['de-invoice.body']!, /^Guten Tag,\n\nanbei erhalten Sie unsere Rechnung/);
    assert.match(page.body, /id="t-en-offer-ph">Placeholders: <code>\{offer_number\}<\/code>/);
    assert.match(page.body, /id="t-de-invoice-ph">Placeholders: <code>\{invoice_number\}<\/code>/);
    assert.equal((page.body.match(/class="tag">The service’s text</g) ?? []).length, 6);
  });

  it('saves a changed text through the service; an unchanged one stays the built-in; reset', async () => {
    const form = formOf((await admin.get(PAGE)).body);
    const saved = await admin.post(PAGE, {
      ...form,
      'en-offer.subject': 'Quote {offer_number}',
      // Browsers send line breaks as CRLF.
      'en-offer.body': 'Dear {client_name},\r\n\r\nour quote.',
    });
    assert.equal(saved.status, 303, saved.body.slice(0, 500));
    assert.equal(saved.location, `${PAGE}?saved`);
    assert.deepEqual(await own(), ['en/offer: Quote {offer_number} | Dear {client_name},\n\nour quote.']);
    const page = await admin.get(`${PAGE}?saved`);
    assert.match(page.body, /<p class="notice" role="status">Saved\.<\/p>/);
    assert.match(page.body, /<h2 id="t-en-offer-title">Offer <span class="tag own">Your own text<\/span>/);
    assert.match(page.body, /name="en-offer.reset"/);

    const reset = await admin.post(PAGE, { ...formOf(page.body), 'en-offer.reset': 'on' });
    assert.equal(reset.status, 303);
    assert.deepEqual(await own(), []);
  });

  it('wrong texts: 422 next to the field, what was typed kept, nothing saved; in German too', async () => {
    const form = formOf((await admin.get(PAGE)).body);
    const res = await admin.post(PAGE, {
      ...form,
      'de-invoice.subject': 'Rechnung {nummer}',
      'en-credit.body': '   ',
      'en-offer.subject': 'Quote {due_date}',
    });
    assert.equal(res.status, 422);
    assert.match(res.body, /id="t-en-credit-body"[^>]*aria-invalid="true"/);
    assert.match(
      res.body,
      /<p class="field-error" id="t-en-credit-body-error">Must not be empty<\/p>/,
      'checked by the page before the service',
    );
    assert.match(res.body, /value="Rechnung \{nummer\}"/);
    assert.match(res.body, /role="alert"/);
    assert.deepEqual(await own(), []);

    const service = await admin.post(PAGE, {
      ...form,
      'de-invoice.subject': 'Rechnung {nummer}',
      'en-offer.subject': 'Quote {due_date}',
    });
    assert.equal(service.status, 422);
    assert.match(service.body, /id="t-de-invoice-subject"[^>]*aria-invalid="true"/);
    assert.match(
      service.body,
      /<p class="field-error" id="t-de-invoice-subject-error">Unknown placeholder \{nummer\}<\/p>/,
    );
    assert.match(
      service.body,
      /<p class="field-error" id="t-en-offer-subject-error">Unknown placeholder \{due_date\}<\/p>/,
    );
    assert.deepEqual(await own(), []);

    const de = new Browser(ctx.app, { lang: 'de' });
    de.jar.set('sid', admin.jar.get('sid')!);
    const german = await de.get(PAGE);
    assert.match(german.body, /<h1>E-Mail-Texte<\/h1>/);
    const empty = await de.post(PAGE, { ...form, 'de-offer.subject': '' });
    assert.equal(empty.status, 422);
    assert.match(empty.body, /Deutsch, Angebot, Betreff: Darf nicht leer sein/);
  });

  it('a forged form is refused; a member is refused the page and the form', async () => {
    const form = formOf((await admin.get(PAGE)).body);
    const forged = await admin.post(PAGE, { ...form, _csrf: 'x'.repeat(43), 'en-offer.subject': 'Evil' });
    assert.equal(forged.status, 403);
    const member = new Browser(ctx.app);
    await member.signIn(memberEmail, PASSWORD);
    assert.equal((await member.get(PAGE)).status, 403);
    assert.equal((await member.post(PAGE, { ...form, 'en-offer.subject': 'Member' })).status, 403);
    assert.deepEqual(await own(), []);
  });
});
