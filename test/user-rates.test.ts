import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { setPassword } from '../src/modules/users/passwords.service.js';
import { type Api, describeEachDb, expectProblem } from './helpers.js';
import { Browser } from './web-client.js';
import { seedWork, type WorkFixture } from './work.fixtures.js';
import { feedOf, seedOtherTenant } from './work-write.fixtures.js';

describeEachDb('rates: users and tasks (beyond the specification)', (ctx) => {
  let w: WorkFixture;
  let stranger: Awaited<ReturnType<typeof seedOtherTenant>>;
  let admin: Api;
  let reader: Api;

  before(async () => {
    w = await seedWork(ctx);
    stranger = await seedOtherTenant(ctx);
    admin = await ctx.as('user:write user:read');
    reader = await ctx.as('user:read');
  });

  it('PUT /users/{id}/rates sets both rates; GET shows them; the user is updated in the feed', async () => {
    const empty = await reader.get(`/users/${w.users.member}/rates`);
    assert.equal(empty.status, 200);
    assert.deepEqual(empty.body.data, {
      user_id: w.users.member,
      hourly_rate: null,
      cost_rate: null,
      updated_at: null,
    });
    const { cursor } = await feedOf(reader, 'user', w.users.member);
    const res = await admin.put(`/users/${w.users.member}/rates`, { hourly_rate: 95.5, cost_rate: 42.1 });
    assert.equal(res.status, 200);
    assert.deepEqual(
      [res.body.data.user_id, res.body.data.hourly_rate, res.body.data.cost_rate],
      [w.users.member, 95.5, 42.1],
    );
    assert.ok(res.body.data.updated_at);
    const row = await ctx.db
      .selectFrom('user_rates')
      .selectAll()
      .where('user_id', '=', w.users.member)
      .executeTakeFirstOrThrow();
    assert.deepEqual([Number(row.hourly_rate), Number(row.cost_rate)], [9550, 4210], 'cents');
    assert.deepEqual((await reader.get(`/users/${w.users.member}/rates`)).body.data, res.body.data);
    const { entries } = await feedOf(reader, 'user', w.users.member, cursor);
    assert.deepEqual(
      entries.map((c) => c.action),
      ['updated'],
    );
    // The same again writes nothing; null clears one.
    const same = await admin.put(`/users/${w.users.member}/rates`, { hourly_rate: 95.5, cost_rate: 42.1 });
    assert.equal(same.body.data.updated_at, res.body.data.updated_at);
    const cleared = await admin.put(`/users/${w.users.member}/rates`, { hourly_rate: null, cost_rate: 42.1 });
    assert.deepEqual([cleared.body.data.hourly_rate, cleared.body.data.cost_rate], [null, 42.1]);
  });

  it('403 when the token’s user is not an administrator; 401, 403 per missing scope', async () => {
    const member = await ctx.as('user:write user:read', { userId: w.users.member });
    const p = expectProblem(
      await member.put(`/users/${w.users.member}/rates`, { hourly_rate: 1, cost_rate: 1 }),
      403,
      'forbidden',
    );
    assert.match(p.detail, /administrator/);
    expectProblem(
      await ctx.anon.put(`/users/${w.users.member}/rates`, { hourly_rate: 1, cost_rate: 1 }),
      401,
    );
    expectProblem(await ctx.anon.get(`/users/${w.users.member}/rates`), 401);
    const q = expectProblem(
      await reader.put(`/users/${w.users.member}/rates`, { not: 'valid' }),
      403,
      'insufficient_scope',
    );
    assert.deepEqual(q.required_scopes, ['user:write']);
    const r = expectProblem(
      await (await ctx.as('user:write')).get(`/users/${w.users.member}/rates`),
      403,
      'insufficient_scope',
    );
    assert.deepEqual(r.required_scopes, ['user:read']);
  });

  it('another account’s user is a 404', async () => {
    expectProblem(
      await admin.put(`/users/${stranger.user}/rates`, { hourly_rate: 1, cost_rate: 1 }),
      404,
      'not_found',
    );
    expectProblem(await reader.get(`/users/${stranger.user}/rates`), 404, 'not_found');
    const outsider = await ctx.as('user:write user:read', { accountId: ctx.other.accountId });
    expectProblem(
      await outsider.put(`/users/${w.users.member}/rates`, { hourly_rate: 1, cost_rate: 1 }),
      404,
      'not_found',
    );
    const row = await ctx.db
      .selectFrom('user_rates')
      .select('user_id')
      .where('user_id', '=', stranger.user)
      .executeTakeFirst();
    assert.equal(row, undefined);
  });

  it('422 on bad input, unknown fields refused', async () => {
    const url = `/users/${w.users.member}/rates`;
    for (const bad of [
      {},
      { hourly_rate: 10 },
      { hourly_rate: 10.001, cost_rate: 1 },
      { hourly_rate: -1, cost_rate: 1 },
      { hourly_rate: '10', cost_rate: 1 },
      { hourly_rate: 10, cost_rate: 1, margin: 3 },
    ])
      expectProblem(await admin.put(url, bad), 422);
    expectProblem(await admin.put('/users/0/rates', { hourly_rate: 1, cost_rate: 1 }), 422);
  });

  it('PATCH /tasks/{task} sets and clears a task’s hourly_rate; GET shows it', async () => {
    const tasks = await ctx.as('task-management:write task-management:read');
    const res = await tasks.patch(`/tasks/${w.tasks.shop}`, { hourly_rate: 130.25 });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.hourly_rate, 130.25);
    const row = await ctx.db
      .selectFrom('tasks')
      .select('hourly_rate')
      .where('id', '=', w.tasks.shop)
      .executeTakeFirstOrThrow();
    assert.equal(Number(row.hourly_rate), 13025);
    assert.equal((await tasks.get(`/tasks/${w.tasks.shop}`)).body.data.hourly_rate, 130.25);
    expectProblem(await tasks.patch(`/tasks/${w.tasks.shop}`, { hourly_rate: 1.234 }), 422);
    expectProblem(await tasks.patch(`/tasks/${w.tasks.shop}`, { hourly_rate: -1 }), 422);
    expectProblem(await tasks.post('/tasks', { project_id: w.projects.web, name: 'x', hourly_rate: 1 }), 422);
    const cleared = await tasks.patch(`/tasks/${w.tasks.shop}`, { hourly_rate: null });
    assert.equal(cleared.body.data.hourly_rate, null);
    const created = await tasks.post('/tasks', { project_id: w.projects.web, name: 'Fresh' });
    assert.equal(created.body.data.hourly_rate, null);
  });

  it('the account’s default_hourly_rate: GET and PATCH /account/profile, stored as cents', async () => {
    const api = await ctx.as('account:read account:write');
    assert.equal((await api.get('/account/profile')).body.data.default_hourly_rate, null);
    const res = await api.patch('/account/profile', { default_hourly_rate: 88.8 });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.default_hourly_rate, 88.8);
    const row = await ctx.db
      .selectFrom('accounts')
      .select('settings')
      .where('id', '=', ctx.account.accountId)
      .executeTakeFirstOrThrow();
    assert.equal(JSON.parse(row.settings!).default_hourly_rate, 8880);
    for (const bad of [88.888, -1, '88'])
      expectProblem(await api.patch('/account/profile', { default_hourly_rate: bad }), 422);
    const cleared = await api.patch('/account/profile', { default_hourly_rate: null });
    assert.equal(cleared.body.data.default_hourly_rate, null);
    expectProblem(
      await (await ctx.as('account:write', { userId: w.users.member })).patch('/account/profile', {
        default_hourly_rate: 1,
      }),
      403,
    );
  });

  it('the console’s company page shows and saves the default hourly rate', async () => {
    const password = 'correct horse battery staple';
    await setPassword(ctx.db, ctx.account.users.admin, password);
    const { email } = await ctx.db
      .selectFrom('users')
      .select('email')
      .where('id', '=', ctx.account.users.admin)
      .executeTakeFirstOrThrow();
    const browser = new Browser(ctx.app);
    await browser.signIn(email, password);
    const page = await browser.get('/console/company');
    assert.match(page.body, /<label for="[^"]+"[^>]*>Default hourly rate/);
    const form: Record<string, string> = {};
    for (const m of page.body.matchAll(
      /<input id="f-[^"]+" name="([^"]+)" type="[^"]+"[^>]*? value="([^"]*)"/g,
    ))
      form[m[1]!] = m[2]!.replace(/&amp;/g, '&');
    const country = /<option value="([A-Z]{2})" selected>/.exec(page.body);
    if (country) form.country_code = country[1]!;
    const saved = await browser.post('/console/company', { ...form, default_hourly_rate: '95,50' });
    assert.equal(saved.status, 303);
    const api = await ctx.as('account:read');
    assert.equal((await api.get('/account/profile')).body.data.default_hourly_rate, 95.5);
    assert.match(
      (await browser.get('/console/company')).body,
      /name="default_hourly_rate" type="text"[^>]*value="95.5"/,
    );
    const refused = await browser.post('/console/company', { ...form, default_hourly_rate: 'lots' });
    assert.equal(refused.status, 422);
    assert.match(refused.body, /id="f-default_hourly_rate-error"/);
  });
});
