import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { createIntegration } from '../src/modules/integration/integration.service.js';
import { setPassword } from '../src/modules/users/passwords.service.js';
import { hashToken } from '../src/plugins/auth.js';
import { Api, describeEachDb } from './helpers.js';
import { Browser, pageError } from './web-client.js';

const PASSWORD = 'correct horse battery staple';
const field = (body: string, id: string) =>
  new RegExp(`id="${id}" type="text" readonly value="([^"]+)"`).exec(body)?.[1];

/** The console's integrations page over HTTP (the browser test drives the same pages). */
describeEachDb('console: integrations and apps', (ctx) => {
  let admin: Browser;
  let memberEmail: string;

  const emailOf = async (id: number) =>
    (await ctx.db.selectFrom('users').select('email').where('id', '=', id).executeTakeFirstOrThrow()).email;
  const audits = (action: string) =>
    ctx.db
      .selectFrom('audit_log')
      .selectAll()
      .where('account_id', '=', ctx.account.accountId)
      .where('action', '=', action)
      .orderBy('id')
      .execute();

  before(async () => {
    await setPassword(ctx.db, ctx.account.users.admin, PASSWORD);
    await setPassword(ctx.db, ctx.account.users.member, PASSWORD);
    memberEmail = await emailOf(ctx.account.users.member);
    admin = new Browser(ctx.app);
    await admin.signIn(await emailOf(ctx.account.users.admin), PASSWORD);
  });

  it('creates an integration with chosen scopes: token and secret shown once, and they work', async () => {
    const page = await admin.get('/console/integrations');
    assert.equal(page.status, 200);
    assert.match(page.body, /See clients/, 'scopes in plain words');
    const created = await admin.post('/console/integrations', {
      name: 'Time sync',
      scope: 'client:read',
      redirect_uris: '',
    });
    assert.equal(created.status, 200);
    const token = field(created.body, 'created-token');
    const secret = field(created.body, 'created-client-secret');
    assert.ok(token?.startsWith('pat_') && secret?.startsWith('cs_'));
    assert.equal(created.headers['referrer-policy'], 'no-referrer');
    const api = new Api(ctx.app, token);
    assert.equal((await api.get('/clients')).status, 200);
    assert.equal((await api.get('/tasks')).status, 403, 'only the chosen scope');
    const list = await admin.get('/console/integrations');
    assert.match(list.body, /Time sync/);
    assert.ok(!list.body.includes(token!), 'never shown again');
    const [entry] = await audits('integration.create');
    assert.ok(entry);
    assert.doesNotMatch(entry.detail ?? '', /pat_|cs_/);
  });

  it('an OAuth app with redirect URIs; edit, tokens (new, revoke), revoke; each audited', async () => {
    await admin.get('/console/integrations');
    // Two checkboxes of one name: the field repeats in the form.
    const res0 = await ctx.app.inject({
      method: 'POST',
      url: '/console/integrations',
      headers: { cookie: admin.cookieHeader, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams([
        ['_csrf', admin.csrf()],
        ['name', 'Mobile app'],
        ['scope', 'task-management:read'],
        ['scope', 'client:read'],
        ['redirect_uris', 'com.example.app:/cb\r\nhttps://app.example.com/cb'],
        ['public', '1'],
      ]).toString(),
    });
    const created = { status: res0.statusCode, body: res0.body, headers: res0.headers };
    assert.equal(created.status, 200, pageError(created));
    assert.equal(field(created.body, 'created-client-secret'), undefined, 'a public client has no secret');
    const id = Number(/href="\/console\/integrations\/(\d+)"/.exec(created.body)?.[1]);
    const row = await ctx.db
      .selectFrom('integrations')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(row.client_type, 'public');
    assert.equal(row.redirect_uris, 'com.example.app:/cb https://app.example.com/cb');
    assert.equal(row.scopes, 'client:read task-management:read');

    let page = await admin.get(`/console/integrations/${id}`);
    assert.equal(page.status, 200);
    let res = await admin.post(`/console/integrations/${id}`, {
      name: 'Mobile app 2',
      scope: 'client:read',
      redirect_uris: 'http://example.com/cb',
      public: '1',
    });
    assert.equal(res.status, 422, 'plain http off loopback');
    assert.match(res.body, /id="app-redirects"[^>]*aria-invalid="true"/);
    await admin.get(`/console/integrations/${id}`);
    res = await admin.post(`/console/integrations/${id}`, {
      name: 'Mobile app 2',
      scope: 'client:read',
      redirect_uris: 'https://app.example.com/cb',
      public: '1',
    });
    assert.equal(res.status, 303);
    const changed = await ctx.db
      .selectFrom('integrations')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      [changed.name, changed.scopes, changed.redirect_uris],
      ['Mobile app 2', 'client:read', 'https://app.example.com/cb'],
    );

    await admin.get(`/console/integrations/${id}`);
    res = await admin.post(`/console/integrations/${id}/tokens`);
    assert.equal(res.status, 200);
    const token = field(res.body, 'new-token');
    assert.ok(token);
    assert.equal((await new Api(ctx.app, token).get('/clients')).status, 200);
    const tokenRow = await ctx.db
      .selectFrom('access_tokens')
      .select('id')
      .where('token_hash', '=', hashToken(token))
      .executeTakeFirstOrThrow();
    page = await admin.get(`/console/integrations/${id}`);
    res = await admin.post(`/console/integrations/${id}/tokens/${tokenRow.id}/revoke`);
    assert.equal(res.status, 303);
    assert.equal((await new Api(ctx.app, token).get('/clients')).status, 401);

    const first = field(created.body, 'created-token')!;
    await admin.get(`/console/integrations/${id}`);
    res = await admin.post(`/console/integrations/${id}/revoke`);
    assert.equal(res.status, 303);
    assert.equal((await new Api(ctx.app, first).get('/clients')).status, 401, 'every token of it');
    await admin.get(`/console/integrations/${id}`);
    res = await admin.post(`/console/integrations/${id}/tokens`);
    assert.equal(res.status, 409, 'a revoked integration takes no new token');
    for (const action of ['integration.update', 'token.create', 'token.revoke', 'integration.revoke'])
      assert.equal((await audits(action)).length, 1, action);
  });

  it('422 without a name or without any permission; nothing created', async () => {
    const before = await ctx.db.selectFrom('integrations').select('id').execute();
    await admin.get('/console/integrations');
    let res = await admin.post('/console/integrations', { name: '', scope: 'client:read' });
    assert.equal(res.status, 422);
    assert.match(res.body, /id="app-name"[^>]*aria-invalid="true"/);
    await admin.get('/console/integrations');
    res = await admin.post('/console/integrations', { name: 'No scopes' });
    assert.equal(res.status, 422);
    assert.match(res.body, /Choose at least one permission/);
    assert.equal((await ctx.db.selectFrom('integrations').select('id').execute()).length, before.length);
  });

  it('lists the grants users gave to apps, and revokes one with its tokens', async () => {
    const appOf = await createIntegration(ctx.db, {
      name: 'Acme Time Tracker',
      scopes: ['client:read'],
      accountId: ctx.account.accountId,
      redirectUris: ['https://acme.example/cb'],
    });
    const grantId = `grant_${ctx.kind}`;
    await ctx.db
      .insertInto('oauth_store')
      .values({
        model: 'Grant',
        id: grantId,
        payload: JSON.stringify({ openid: { scope: 'client:read' } }),
        client_id: appOf.client_id,
        user_id: ctx.account.users.member,
        grant_id: null,
        uid: null,
        expires_at: null,
        consumed_at: null,
      })
      .execute();
    const token = `at_${ctx.kind}_granted`;
    await ctx.db
      .insertInto('access_tokens')
      .values({
        integration_id: appOf.id,
        token_hash: hashToken(token),
        scopes: 'client:read',
        expires_at: null,
        user_id: ctx.account.users.member,
        grant_id: grantId,
      })
      .execute();
    assert.equal((await new Api(ctx.app, token).get('/clients')).status, 200);
    const page = await admin.get('/console/integrations');
    assert.match(page.body, new RegExp(`Acme Time Tracker</div></td>\\s*<td[^>]*><div>${memberEmail}`));

    // Another account's admin cannot revoke it.
    await setPassword(ctx.db, ctx.other.users.admin, PASSWORD);
    const stranger = new Browser(ctx.app);
    await stranger.signIn(await emailOf(ctx.other.users.admin), PASSWORD);
    await stranger.get('/console/integrations');
    assert.doesNotMatch((await stranger.get('/console/integrations')).body, /Acme Time Tracker/);
    assert.equal((await stranger.post(`/console/integrations/grants/${grantId}/revoke`)).status, 404);
    assert.equal(
      (await stranger.post(`/console/integrations/${appOf.id}/revoke`)).status,
      404,
      "another account's integration",
    );

    const res = await admin.post(`/console/integrations/grants/${grantId}/revoke`);
    assert.equal(res.status, 303);
    assert.equal((await new Api(ctx.app, token).get('/clients')).status, 401);
    assert.doesNotMatch((await admin.get('/console/integrations')).body, /Acme Time Tracker<\/div><\/td>/);
    const [entry] = await audits('grant.revoke');
    assert.equal(JSON.parse(entry!.detail!).user_id, ctx.account.users.member);
  });

  it('a member is refused (403); a POST without CSRF token or from elsewhere is refused (403)', async () => {
    const member = new Browser(ctx.app);
    await member.signIn(memberEmail, PASSWORD);
    assert.equal((await member.get('/console/integrations')).status, 403);
    await member.get('/console/password');
    const res = await member.post('/console/integrations', { name: 'Sneaky', scope: 'client:read' });
    assert.equal(res.status, 403);
    await admin.get('/console/integrations');
    const before = (await ctx.db.selectFrom('integrations').select('id').execute()).length;
    assert.equal(
      (await admin.post('/console/integrations', { _csrf: '', name: 'X', scope: 'client:read' })).status,
      403,
    );
    assert.equal(
      (
        await admin.post(
          '/console/integrations',
          { name: 'X', scope: 'client:read' },
          { origin: 'https://evil.example' },
        )
      ).status,
      403,
    );
    assert.equal((await ctx.db.selectFrom('integrations').select('id').execute()).length, before);
  });
});
