import assert from 'node:assert/strict';
import { it } from 'node:test';
import { listAuditEntries } from '../src/modules/audit/audit.service.js';
import { PNG } from './account.fixtures.js';
import { countRows, describeEachDb, expectProblem, multipart } from './helpers.js';

const fieldsOf = (res: Parameters<typeof expectProblem>[0]) =>
  expectProblem(res, 422).errors?.map((e) => e.field) ?? [];

describeEachDb('company profile API', (ctx) => {
  it('GET answers the profile the account was imported with, typed', async () => {
    const api = await ctx.as(['account:read']);
    const res = await api.get('/account/profile');
    assert.equal(res.status, 200, res.text);
    const p = res.body.data;
    assert.match(p.name, /^Test account \d+$/);
    assert.equal(p.country_code, 'DE');
    assert.equal(p.iban, 'DE02120300000000202051');
    assert.equal(p.vat_id, 'DE123456789');
    assert.deepEqual(p.number_formats, { invoice: 'RE-{YYYY}-{NNNNN}', credit: 'GS-{YYYY}-{NNNNN}' });
    assert.equal(p.service_date_defaults_to_invoice_date, true);
    assert.equal(p.invoice_intro_text, null);
    assert.equal(p.payment_term_days, null);
    assert.equal(p.logo, null);
  });

  it('401 without a token, 403 per missing scope and for a member behind the token', async () => {
    expectProblem(await ctx.anon.get('/account/profile'), 401);
    expectProblem(await ctx.anon.patch('/account/profile', { name: 'X' }), 401);
    const readOnly = await ctx.as(['account:read']);
    const denied = expectProblem(
      await readOnly.patch('/account/profile', { name: 'X' }),
      403,
      'insufficient_scope',
    );
    assert.deepEqual(denied.required_scopes, ['account:write']);
    const writeOnly = await ctx.as(['account:write']);
    expectProblem(await writeOnly.get('/account/profile'), 403, 'insufficient_scope');
    const member = await ctx.as(['account:read', 'account:write'], { userId: ctx.account.users.member });
    const notAdmin = expectProblem(await member.get('/account/profile'), 403, 'forbidden');
    assert.match(notAdmin.detail, /administrator/);
    expectProblem(await member.patch('/account/profile', { city: 'Köln' }), 403, 'forbidden');
    expectProblem(await member.request('DELETE', '/account/profile/logo'), 403, 'forbidden');
  });

  it('PATCH changes the named fields, normalises identifiers, audits, and leaves other accounts alone', async () => {
    const api = await ctx.as(['account:read', 'account:write']);
    const res = await api.patch('/account/profile', {
      name: '  Muster GmbH ',
      street: 'Hauptstraße 5',
      iban: 'de89 3704 0044 0532 0130 00',
      bic: 'cobadeffxxx',
      vat_id: 'DE 123 456 789',
      invoice_intro_text: 'Thank you for your order.\nWe invoice as follows:',
      invoice_closing_text: 'Kind regards',
      payment_term_days: 14,
      payment_terms_text: 'Please pay by {due_date} ({days} days).',
      number_formats: { invoice: 'INV-{YY}-{NNNN}' },
    });
    assert.equal(res.status, 200, res.text);
    const p = res.body.data;
    assert.equal(p.name, 'Muster GmbH');
    assert.equal(p.iban, 'DE89370400440532013000');
    assert.equal(p.bic, 'COBADEFFXXX');
    assert.equal(p.vat_id, 'DE123456789');
    assert.equal(p.invoice_intro_text, 'Thank you for your order.\nWe invoice as follows:');
    assert.equal(p.payment_term_days, 14);
    assert.deepEqual(p.number_formats, { invoice: 'INV-{YY}-{NNNN}', credit: 'GS-{YYYY}-{NNNNN}' });
    assert.equal(p.city, 'Berlin', 'fields not sent stay');
    assert.deepEqual((await api.get('/account/profile')).body.data, p);

    // null clears an optional field; the settings keep keys the profile does not know.
    const cleared = await api.patch('/account/profile', {
      invoice_closing_text: null,
      payment_term_days: null,
    });
    assert.equal(cleared.body.data.invoice_closing_text, null);
    assert.equal(cleared.body.data.payment_term_days, null);

    const audit = await listAuditEntries(ctx.db, ctx.account.accountId);
    const entry = audit.entries.find((e) => e.action === 'account.profile_update');
    assert.ok(entry);
    assert.equal(entry.actor_kind, 'token');
    assert.equal(entry.actor_user_id, ctx.account.users.admin);
    assert.deepEqual(entry.detail, { changed: ['invoice_closing_text', 'payment_term_days'] });
    const first = audit.entries.filter((e) => e.action === 'account.profile_update').at(-1)!;
    assert.ok((first.detail?.changed as string[] | undefined)?.includes('iban'));
    assert.ok(!JSON.stringify(first.detail).includes('DE89'), 'values of bank details are not in the log');

    // A change that changes nothing writes nothing.
    const before = await countRows(ctx.db, 'audit_log');
    assert.equal((await api.patch('/account/profile', { city: 'Berlin' })).status, 200);
    assert.equal(await countRows(ctx.db, 'audit_log'), before);

    const other = await ctx.as(['account:read'], { accountId: ctx.other.accountId });
    assert.match((await other.get('/account/profile')).body.data.name, /^Test account \d+$/);
  });

  it('422 names each wrong field: IBAN check digits, VAT id per country, BIC, country, formats, unknown fields', async () => {
    const api = await ctx.as(['account:read', 'account:write']);
    const before = (await api.get('/account/profile')).body.data;
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ iban: 'DE89370400440532013001' }, 'iban', /check digits/],
      [{ iban: 'DE8937040044053201300' }, 'iban', /not a valid IBAN/],
      [{ vat_id: 'DE12345678' }, 'vat_id', /format of a VAT id of DE/],
      [{ vat_id: 'ATU1234567' }, 'vat_id', /format of a VAT id of AT/],
      [{ vat_id: 'XX123456789' }, 'vat_id', /country prefix/],
      [{ bic: 'COBADEF' }, 'bic', /not a valid BIC/],
      [{ country_code: 'XX' }, 'country_code', /ISO 3166-1/],
      [{ country_code: 'de' }, 'country_code', /pattern/],
      [{ number_formats: { credit: 'GS-{YYYY}' } }, 'number_formats.credit', /counter/],
      [{ email: 'not-mail' }, 'email', /./],
      [{ phone: 'call me' }, 'phone', /digits/],
      [{ payment_term_days: 400 }, 'payment_term_days', /./],
      [{ payment_terms_text: 'Pay by {date}' }, 'payment_terms_text', /\{due_date\}/],
      [{ name: '   ' }, 'name', /empty/],
      [{ name: 'x'.repeat(201) }, 'name', /./],
      [{ ibna: 'DE89370400440532013000' }, 'ibna', /additional/],
      [{ number_formats: { offer: 'AN-{NNN}' } }, 'number_formats.offer', /additional/],
    ];
    for (const [body, field, message] of cases) {
      const res = await api.patch('/account/profile', body);
      const problem = expectProblem(res, 422);
      const error = problem.errors?.find((e) => e.field === field);
      assert.ok(error, `${JSON.stringify(body)}: ${res.text}`);
      assert.match(error.message, message, JSON.stringify(body));
    }
    // Several at once: each named, nothing written.
    assert.deepEqual(
      fieldsOf(await api.patch('/account/profile', { iban: 'DE00', bic: 'X', city: 'Bonn' })).sort(),
      ['bic', 'iban'],
    );
    assert.deepEqual((await api.get('/account/profile')).body.data, before);
  });

  it('logo: PNG or JPEG up to 256 KB, read back, removed; audited', async () => {
    const api = await ctx.as(['account:read', 'account:write']);
    expectProblem(await api.get('/account/profile/logo'), 404, 'not_found');
    const up = await multipart({ name: 'logo.png', type: 'image/png', data: PNG });
    const res = await api.request('PUT', '/account/profile/logo', up.body, up.headers);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.logo.content_type, 'image/png');
    assert.equal(res.body.data.logo.byte_size, PNG.length);
    assert.equal(res.body.data.logo.url, '/api/v1/account/profile/logo');
    const img = await api.app.inject({
      url: '/api/v1/account/profile/logo',
      headers: { authorization: `Bearer ${api.token}` },
    });
    assert.equal(img.statusCode, 200);
    assert.equal(img.headers['content-type'], 'image/png');
    assert.deepEqual(img.rawPayload, PNG);

    const fake = await multipart({ name: 'logo.png', type: 'image/png', data: Buffer.from('<svg/>') });
    expectProblem(await api.request('PUT', '/account/profile/logo', fake.body, fake.headers), 415);
    const gif = await multipart({ name: 'a.gif', type: 'image/gif', data: Buffer.from('GIF89a') });
    expectProblem(await api.request('PUT', '/account/profile/logo', gif.body, gif.headers), 415);
    const big = Buffer.concat([PNG, Buffer.alloc(256 * 1024)]);
    const huge = await multipart({ name: 'big.png', type: 'image/png', data: big });
    expectProblem(await api.request('PUT', '/account/profile/logo', huge.body, huge.headers), 413);
    const none = await multipart(null);
    expectProblem(await api.request('PUT', '/account/profile/logo', none.body, none.headers), 422);
    const readOnly = await ctx.as(['account:read']);
    expectProblem(
      await readOnly.request('PUT', '/account/profile/logo', up.body, up.headers),
      403,
      'insufficient_scope',
    );

    assert.equal((await api.request('DELETE', '/account/profile/logo')).status, 204);
    assert.equal((await api.get('/account/profile')).body.data.logo, null);
    expectProblem(await api.get('/account/profile/logo'), 404);
    const actions = (await listAuditEntries(ctx.db, ctx.account.accountId)).entries.map((e) => e.action);
    assert.ok(actions.includes('account.logo_set') && actions.includes('account.logo_remove'));
  });
});
