import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { setPassword } from '../src/modules/users/passwords.service.js';
import { describeEachDb } from './helpers.js';
import { Browser, pageError } from './web-client.js';

const PASSWORD = 'correct horse battery staple';

/** The console's users page and password page over HTTP (the browser test drives the same pages). */
describeEachDb('console: users', (ctx) => {
  let adminEmail: string;
  let memberEmail: string;
  let admin: Browser;

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
    adminEmail = await emailOf(ctx.account.users.admin);
    memberEmail = await emailOf(ctx.account.users.member);
    await setPassword(ctx.db, ctx.account.users.admin, PASSWORD);
    await setPassword(ctx.db, ctx.account.users.member, PASSWORD);
    admin = new Browser(ctx.app);
    assert.equal((await admin.signIn(adminEmail, PASSWORD)).status, 303);
  });

  it('lists the users of the account only', async () => {
    const page = await admin.get('/console/users');
    assert.equal(page.status, 200);
    assert.match(page.body, new RegExp(memberEmail));
    const stranger = await emailOf(ctx.other.users.admin);
    assert.doesNotMatch(page.body, new RegExp(stranger));
  });

  it('invites a user: the link is shown once, works, and the invitation is audited without it', async () => {
    await admin.get('/console/users');
    const res = await admin.post('/console/users/invite', {
      email: 'Nina.New@test.example',
      first_name: 'Nina',
      last_name: 'New',
      role: 'member',
    });
    assert.equal(res.status, 200);
    const url = /id="invitation-link" type="text" readonly value="([^"]+)"/.exec(res.body)?.[1];
    assert.ok(url, 'the link is on the page');
    assert.equal(res.headers['referrer-policy'], 'no-referrer');
    const path = new URL(url).pathname;
    const invitee = new Browser(ctx.app);
    assert.equal((await invitee.get(path)).status, 200);
    // Not on the list page afterwards.
    assert.ok(!(await admin.get('/console/users')).body.includes(path), 'the link is not listed');
    const [entry] = await audits('user.invite');
    assert.ok(entry);
    assert.equal(entry.actor_user_id, ctx.account.users.admin);
    assert.doesNotMatch(entry.detail ?? '', /invite\//);
    assert.match(entry.detail ?? '', /nina\.new@test\.example/);
  });

  it('422 with the fields named on a bad invitation; nothing written', async () => {
    await admin.get('/console/users');
    const before = await audits('user.invite');
    const res = await admin.post('/console/users/invite', {
      email: 'not-an-address',
      first_name: 'X',
      last_name: 'Y',
      role: 'member',
    });
    assert.equal(res.status, 422);
    assert.match(res.body, /id="invite-email"[^>]*aria-invalid="true"/);
    assert.deepEqual(await audits('user.invite'), before);
  });

  it('deactivates a user (their session ends), reactivates, changes the role; each audited', async () => {
    const member = new Browser(ctx.app);
    await member.signIn(memberEmail, PASSWORD);
    assert.equal((await member.get('/me')).status, 200);
    const token = await ctx.as('client:read', { userId: ctx.account.users.member });
    assert.equal((await token.get('/clients')).status, 200);

    await admin.get('/console/users');
    let res = await admin.post(`/console/users/${ctx.account.users.member}/active`, { active: '0' });
    assert.equal(res.status, 303);
    assert.equal(res.location, '/console/users?done=deactivated');
    assert.equal((await member.get('/me')).status, 303, 'the member is signed out');
    assert.equal((await token.get('/clients')).status, 401, "the member's tokens stop working");

    await admin.get('/console/users');
    res = await admin.post(`/console/users/${ctx.account.users.member}/active`, { active: '1' });
    assert.equal(res.status, 303);
    assert.equal((await token.get('/clients')).status, 200, 'and work again');
    await admin.get('/console/users');
    res = await admin.post(`/console/users/${ctx.account.users.member}/role`, { role: 'admin' });
    assert.equal(res.status, 303);
    const row = await ctx.db
      .selectFrom('users')
      .select(['role', 'active'])
      .where('id', '=', ctx.account.users.member)
      .executeTakeFirstOrThrow();
    assert.deepEqual({ role: row.role, active: Number(row.active) }, { role: 'admin', active: 1 });
    assert.equal((await audits('user.deactivate')).length, 1);
    assert.equal((await audits('user.reactivate')).length, 1);
    const [role] = await audits('user.change_role');
    assert.deepEqual(JSON.parse(role!.detail!), { email: memberEmail, from: 'member', to: 'admin' });
    await admin.get('/console/users');
    await admin.post(`/console/users/${ctx.account.users.member}/role`, { role: 'member' });
  });

  it('409: an admin cannot deactivate or demote themself', async () => {
    await admin.get('/console/users');
    let res = await admin.post(`/console/users/${ctx.account.users.admin}/active`, { active: '0' });
    assert.equal(res.status, 409);
    assert.match(pageError(res) ?? '', /cannot change your own access/);
    await admin.get('/console/users');
    res = await admin.post(`/console/users/${ctx.account.users.admin}/role`, { role: 'member' });
    assert.equal(res.status, 409);
  });

  it("404 for another account's user", async () => {
    await admin.get('/console/users');
    const res = await admin.post(`/console/users/${ctx.other.users.member}/active`, { active: '0' });
    assert.equal(res.status, 404);
    const row = await ctx.db
      .selectFrom('users')
      .select('active')
      .where('id', '=', ctx.other.users.member)
      .executeTakeFirstOrThrow();
    assert.equal(Number(row.active), 1);
  });

  it('sets a user’s sale and cost rate, shown on the page and in the API; refuses a bad amount', async () => {
    const id = ctx.account.users.member;
    await admin.get('/console/users');
    const res = await admin.post(`/console/users/${id}/rates`, { hourly_rate: '95,50', cost_rate: '48' });
    assert.equal(res.status, 303);
    assert.equal(res.location, '/console/users?done=rates');
    const page = await admin.get('/console/users?done=rates');
    assert.match(page.body, /The rates are saved/);
    assert.match(page.body, new RegExp(`id="hourly-${id}"[^>]*value="95.50"`));
    assert.match(page.body, new RegExp(`id="cost-${id}"[^>]*value="48.00"`));
    const api = await ctx.as('user:read');
    const rates = await api.get(`/users/${id}/rates`);
    assert.equal(rates.status, 200, rates.text);
    assert.deepEqual([rates.body.data.hourly_rate, rates.body.data.cost_rate], [95.5, 48]);

    await admin.get('/console/users');
    const bad = await admin.post(`/console/users/${id}/rates`, { hourly_rate: '95.555', cost_rate: '' });
    assert.equal(bad.status, 422);
    assert.match(bad.body, /at most two decimals/);
    assert.deepEqual((await api.get(`/users/${id}/rates`)).body.data.hourly_rate, 95.5, 'nothing changed');

    // Empty clears a rate.
    await admin.get('/console/users');
    await admin.post(`/console/users/${id}/rates`, { hourly_rate: '', cost_rate: '48' });
    assert.equal((await api.get(`/users/${id}/rates`)).body.data.hourly_rate, null);
  });

  it('a member is refused (403) on every admin page and action', async () => {
    const member = new Browser(ctx.app);
    await member.signIn(memberEmail, PASSWORD);
    assert.equal((await member.get('/console/users')).status, 403);
    // A form of the member's own page carries a valid token: the role check refuses, not CSRF.
    await member.get('/console/password');
    for (const [path, form] of [
      ['/console/users/invite', { email: 'x@test.example', first_name: 'X', last_name: 'Y', role: 'admin' }],
      [`/console/users/${ctx.account.users.admin}/active`, { active: '0' }],
      [`/console/users/${ctx.account.users.member}/role`, { role: 'admin' }],
      [`/console/users/${ctx.account.users.member}/invite`, {}],
      [`/console/users/${ctx.account.users.member}/rates`, { hourly_rate: '1', cost_rate: '1' }],
    ] as const) {
      const res = await member.post(path, form);
      assert.equal(res.status, 403, path);
      assert.match(res.body, /for administrators/);
    }
  });

  it('refuses a POST without the CSRF token or from another origin (403), changing nothing', async () => {
    await admin.get('/console/users');
    let res = await admin.post(`/console/users/${ctx.account.users.member}/active`, {
      _csrf: '',
      active: '0',
    });
    assert.equal(res.status, 403);
    res = await admin.post(
      `/console/users/${ctx.account.users.member}/active`,
      { active: '0' },
      { origin: 'https://evil.example' },
    );
    assert.equal(res.status, 403);
    const row = await ctx.db
      .selectFrom('users')
      .select('active')
      .where('id', '=', ctx.account.users.member)
      .executeTakeFirstOrThrow();
    assert.equal(Number(row.active), 1);
  });

  it('sends a visitor without a session to sign in', async () => {
    const res = await new Browser(ctx.app).get('/console/users');
    assert.equal(res.status, 303);
    assert.match(res.location ?? '', /^\/signin\?return_to=/);
  });

  it('every user changes their own password: the current one is required; other sessions end', async () => {
    const email = 'pw.changer@test.example';
    const id = Number(
      (
        await ctx.db
          .insertInto('users')
          .values({ account_id: ctx.account.accountId, email, first_name: 'Paula', last_name: 'Word' })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    );
    await setPassword(ctx.db, id, PASSWORD);
    const here = new Browser(ctx.app);
    const elsewhere = new Browser(ctx.app);
    await here.signIn(email, PASSWORD);
    await elsewhere.signIn(email, PASSWORD);
    // Members find it from their own page (the console's navigation is for admins).
    assert.match((await here.get('/me')).body, /href="\/console\/password"/);
    assert.equal((await here.get('/console/password')).status, 200);

    let res = await here.post('/console/password', {
      current_password: 'wrong wrong wrong',
      password: 'a brand new passphrase',
      password_confirm: 'a brand new passphrase',
    });
    assert.equal(res.status, 422);
    assert.equal(pageError(res), 'The current password is wrong.');
    await here.get('/console/password');
    res = await here.post('/console/password', {
      current_password: PASSWORD,
      password: 'short',
      password_confirm: 'short',
    });
    assert.equal(res.status, 422);
    await here.get('/console/password');
    res = await here.post('/console/password', {
      current_password: PASSWORD,
      password: 'a brand new passphrase',
      password_confirm: 'a brand new passphrase',
    });
    assert.equal(res.status, 303);
    assert.equal(res.location, '/console/password?changed');
    assert.equal((await here.get('/console/password?changed')).status, 200, 'still signed in here');
    assert.equal((await elsewhere.get('/me')).status, 303, 'the other session ended');
    assert.equal((await new Browser(ctx.app).signIn(email, 'a brand new passphrase')).status, 303);
    const entries = await audits('user.change_password');
    assert.equal(entries.at(-1)?.actor_user_id, id);
  });
});
