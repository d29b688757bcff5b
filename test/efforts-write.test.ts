import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { setPassword } from '../src/modules/users/passwords.service.js';
import { describeScope } from '../src/shared/scopes.js';
import { type Api, countRows, describeEachDb, expectProblem } from './helpers.js';
import { line, makeClient, makeInvoice } from './invoicing.fixtures.js';
import { Browser } from './web-client.js';
import { seedWork, type WorkFixture } from './work.fixtures.js';
import { feedOf, seedOtherTenant } from './work-write.fixtures.js';

describeEachDb('efforts: writing (beyond the specification)', (ctx) => {
  let w: WorkFixture;
  let stranger: { project: number; task: number; user: number };
  let own: Api;
  let extended: Api;
  let asMember: Api;

  before(async () => {
    w = await seedWork(ctx);
    stranger = await seedOtherTenant(ctx);
    own = await ctx.as('efforts:read efforts:write');
    extended = await ctx.as('efforts:read efforts:extended:read efforts:write efforts:extended:write');
    asMember = await ctx.as('efforts:read efforts:write', { userId: w.users.member });
  });

  const effort = (extra: Record<string, unknown> = {}) => ({
    project_id: w.projects.web,
    date: '2026-11-02',
    duration_minutes: 90,
    ...extra,
  });

  it('creates an effort for the token’s user: 201, Location, the list shows it', async () => {
    const res = await own.post('/efforts', effort({ description: 'Kick-off', hourly_rate: 95.5 }));
    assert.equal(res.status, 201);
    const e = res.body.data;
    assert.equal(res.headers.location, `/api/v1/efforts/${e.id}`);
    assert.deepEqual(
      [e.user_id, e.project_id, e.task_id, e.type, e.billable, e.hourly_rate, e.description],
      [ctx.account.users.admin, w.projects.web, null, 'work', true, 95.5, 'Kick-off'],
    );
    const stored = await ctx.db
      .selectFrom('efforts')
      .select('hourly_rate')
      .where('id', '=', e.id)
      .executeTakeFirst();
    assert.equal(Number(stored!.hourly_rate), 9550, 'stored in cents');
    const listed = await own.get(`/efforts?date_from=2026-11-02&date_to=2026-11-02`);
    assert.ok(listed.body.data.some((x: { id: number }) => x.id === e.id));
    // The change feed shows the new effort.
    const { entries } = await feedOf(await ctx.as('efforts:read'), 'effort', e.id);
    assert.deepEqual(
      entries.map((c) => c.action),
      ['created'],
    );
  });

  it('a task alone sets the project; a task of another project is a 422', async () => {
    const res = await own.post('/efforts', {
      date: '2026-11-03',
      duration_minutes: 15,
      task_id: w.tasks.shop,
    });
    assert.equal(res.status, 201);
    assert.equal(res.body.data.project_id, w.projects.web);
    const p = expectProblem(
      await own.post('/efforts', effort({ task_id: w.tasks.appLogin })),
      422,
      'validation_failed',
    );
    assert.deepEqual(
      p.errors!.map((e) => e.field),
      ['task_id'],
    );
  });

  it('admin time defaults to not billable and needs efforts:extended:write', async () => {
    const p = expectProblem(await own.post('/efforts', effort({ type: 'admin' })), 403, 'insufficient_scope');
    assert.ok(p.required_scopes!.includes('efforts:extended:write'));
    const res = await extended.post('/efforts', { date: '2026-11-04', duration_minutes: 30, type: 'admin' });
    assert.equal(res.status, 201);
    assert.equal(res.body.data.billable, false);
  });

  it('another user’s effort needs efforts:extended:write', async () => {
    expectProblem(await own.post('/efforts', effort({ user_id: w.users.member })), 403, 'insufficient_scope');
    const res = await extended.post('/efforts', effort({ user_id: w.users.member }));
    assert.equal(res.status, 201);
    const id = res.body.data.id;
    expectProblem(await own.patch(`/efforts/${id}`, { duration_minutes: 10 }), 403, 'insufficient_scope');
    expectProblem(await own.delete(`/efforts/${id}`), 403, 'insufficient_scope');
    // The member writes their own.
    const mine = await asMember.patch(`/efforts/${id}`, { duration_minutes: 45 });
    assert.equal(mine.status, 200);
    assert.equal(mine.body.data.duration_minutes, 45);
    // …but cannot hand it to someone else.
    expectProblem(
      await asMember.patch(`/efforts/${id}`, { user_id: ctx.account.users.admin }),
      403,
      'insufficient_scope',
    );
  });

  it('PATCH changes the given fields; DELETE removes the effort', async () => {
    const { body } = await own.post('/efforts', effort());
    const id = body.data.id;
    const res = await own.patch(`/efforts/${id}`, {
      duration_minutes: 120,
      billable: false,
      hourly_rate: 110,
      task_id: w.tasks.wireframes,
    });
    assert.equal(res.status, 200);
    assert.deepEqual(
      [
        res.body.data.duration_minutes,
        res.body.data.billable,
        res.body.data.hourly_rate,
        res.body.data.task_id,
      ],
      [120, false, 110, w.tasks.wireframes],
    );
    // Moving to the task of another project moves the project with it.
    const moved = await own.patch(`/efforts/${id}`, { task_id: w.tasks.appLogin });
    assert.equal(moved.body.data.project_id, w.projects.app);
    const cleared = await own.patch(`/efforts/${id}`, { hourly_rate: null, task_id: null });
    assert.deepEqual([cleared.body.data.hourly_rate, cleared.body.data.task_id], [null, null]);
    // Nothing changes: updated_at stays.
    const same = await own.patch(`/efforts/${id}`, { duration_minutes: 120 });
    assert.equal(same.body.data.updated_at, cleared.body.data.updated_at);
    const del = await own.delete(`/efforts/${id}`);
    assert.equal(del.status, 204);
    expectProblem(await own.patch(`/efforts/${id}`, { duration_minutes: 1 }), 404, 'not_found');
    expectProblem(await own.delete(`/efforts/${id}`), 404, 'not_found');
  });

  it('401 without a token, 403 per missing scope, before validating the body', async () => {
    expectProblem(await ctx.anon.post('/efforts', effort()), 401, 'unauthorized');
    expectProblem(await ctx.anon.patch('/efforts/1', { duration_minutes: 1 }), 401, 'unauthorized');
    expectProblem(await ctx.anon.delete('/efforts/1'), 401, 'unauthorized');
    const reader = await ctx.as('efforts:read efforts:extended:read efforts:extended:write');
    for (const res of [
      await reader.post('/efforts', { not: 'valid' }),
      await reader.patch('/efforts/1', { not: 'valid' }),
      await reader.delete('/efforts/1'),
    ]) {
      const p = expectProblem(res, 403, 'insufficient_scope');
      assert.deepEqual(p.required_scopes, ['efforts:write']);
    }
  });

  it('another account’s ids: 404 in the path, 422 naming the field in the body', async () => {
    const { body } = await own.post('/efforts', effort());
    const id = body.data.id;
    const outsider = await ctx.as('efforts:read efforts:write efforts:extended:write', {
      accountId: ctx.other.accountId,
    });
    expectProblem(await outsider.patch(`/efforts/${id}`, { duration_minutes: 1 }), 404, 'not_found');
    expectProblem(await outsider.delete(`/efforts/${id}`), 404, 'not_found');
    const before = await countRows(ctx.db, 'efforts');
    for (const [field, value] of [
      ['project_id', stranger.project],
      ['task_id', stranger.task],
      ['user_id', stranger.user],
    ] as const) {
      const p = expectProblem(
        await extended.post('/efforts', effort({ [field]: value })),
        422,
        'validation_failed',
      );
      assert.deepEqual(
        p.errors!.map((e) => e.field),
        [field],
      );
      const q = expectProblem(await extended.patch(`/efforts/${id}`, { [field]: value }), 422);
      assert.deepEqual(
        q.errors!.map((e) => e.field),
        [field],
      );
    }
    assert.equal(await countRows(ctx.db, 'efforts'), before);
  });

  it('422 on bad input, unknown fields refused', async () => {
    const { body } = await own.post('/efforts', effort());
    for (const bad of [
      { duration_minutes: 30 },
      effort({ duration_minutes: -1 }),
      effort({ duration_minutes: 24 * 60 + 1 }),
      effort({ date: '2026-13-01' }),
      effort({ type: 'holiday' }),
      effort({ hourly_rate: 10.005 }),
      effort({ hourly_rate: -1 }),
      effort({ invoice_id: 3 }),
    ])
      expectProblem(await own.post('/efforts', bad), 422);
    expectProblem(await own.patch(`/efforts/${body.data.id}`, {}), 422);
    expectProblem(await own.patch(`/efforts/${body.data.id}`, { created_at: '2026-01-01T00:00:00Z' }), 422);
    expectProblem(await own.patch('/efforts/0', { duration_minutes: 1 }), 422);
  });

  it('an effort on an invoice: 409 effort_billed for its billed value and DELETE, description may change', async () => {
    const { body } = await own.post('/efforts', effort({ description: 'billed' }));
    const id = body.data.id;
    const invoicer = await ctx.as('outgoing-invoice:write client:write');
    const invoice = await makeInvoice(invoicer, {
      client_id: await makeClient(invoicer),
      line_items: [line(100)],
    });
    await ctx.db
      .insertInto('invoice_efforts')
      .values({
        account_id: ctx.account.accountId,
        invoice_id: invoice.id,
        effort_id: id,
        position: 1,
        minutes: 90,
        hourly_rate: 10000,
        rate_source: 'account',
      })
      .execute();
    for (const change of [
      { duration_minutes: 60 },
      { hourly_rate: 1 },
      { billable: false },
      { user_id: w.users.member },
      { project_id: w.projects.app },
      { task_id: w.tasks.shop },
      { date: '2026-11-05' },
      { type: 'travel' },
    ]) {
      const p = expectProblem(await extended.patch(`/efforts/${id}`, change), 409, 'effort_billed');
      assert.match(p.detail, new RegExp(`invoice ${invoice.id}`));
    }
    expectProblem(await own.delete(`/efforts/${id}`), 409, 'effort_billed');
    // The same values again change nothing, so they pass.
    assert.equal((await own.patch(`/efforts/${id}`, { duration_minutes: 90 })).status, 200);
    const res = await own.patch(`/efforts/${id}`, { description: 'billed, described' });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.description, 'billed, described');
    // Deleting the invoice frees the effort.
    const del = await invoicer.delete(`/outgoing-invoices/${invoice.id}`);
    assert.equal(del.status, 204);
    assert.equal((await own.delete(`/efforts/${id}`)).status, 204);
  });

  // PostgreSQL only: SQLite has one writer, so nothing runs in between.
  if (ctx.kind === 'postgres')
    it('PostgreSQL: a PATCH waits for a billing of the same effort in flight, then answers 409', async () => {
      const { body } = await own.post('/efforts', effort({ description: 'raced' }));
      const id = body.data.id;
      const invoicer = await ctx.as('outgoing-invoice:write client:write');
      const invoice = await makeInvoice(invoicer, {
        client_id: await makeClient(invoicer),
        line_items: [line(100)],
      });
      // Billing's transaction, not yet committed, holds the link.
      const trx = await ctx.db.startTransaction().execute();
      await trx
        .insertInto('invoice_efforts')
        .values({
          account_id: ctx.account.accountId,
          invoice_id: invoice.id,
          effort_id: id,
          position: 1,
          minutes: 90,
          hourly_rate: 10000,
          rate_source: 'account',
        })
        .execute();
      let answered = false;
      const patch = own.patch(`/efforts/${id}`, { duration_minutes: 5 }).then((r) => {
        answered = true;
        return r;
      });
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(answered, false, 'the PATCH waits for the billing transaction');
      await trx.commit().execute();
      expectProblem(await patch, 409, 'effort_billed');
      const row = await ctx.db
        .selectFrom('efforts')
        .select('duration_minutes')
        .where('id', '=', id)
        .executeTakeFirst();
      assert.equal(row!.duration_minutes, 90);
    });

  it('the scopes of writing the work are in the OAuth metadata and the console’s permission list', async () => {
    const NEW = ['efforts:write', 'efforts:extended:write', 'project:write', 'offer:write', 'user:write'];
    const meta = await ctx.app.inject({ url: '/.well-known/oauth-authorization-server' });
    assert.equal(meta.statusCode, 200);
    for (const s of NEW) assert.ok(meta.json().scopes_supported.includes(s), s);
    const password = 'correct horse battery staple';
    await setPassword(ctx.db, ctx.account.users.admin, password);
    const { email } = await ctx.db
      .selectFrom('users')
      .select('email')
      .where('id', '=', ctx.account.users.admin)
      .executeTakeFirstOrThrow();
    const browser = new Browser(ctx.app);
    await browser.signIn(email, password);
    const page = await browser.get('/console/integrations');
    assert.equal(page.status, 200);
    for (const s of NEW) {
      assert.ok(page.body.includes(`value="${s}"`), `${s} can be chosen`);
      assert.ok(page.body.includes(describeScope(s)), `${s} is described`);
    }
  });
});
