import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { importData } from '../src/import/index.js';
import { type Api, describeEachDb, expectProblem, multipart, type Response } from './helpers.js';
import { line, makeClient } from './invoicing.fixtures.js';
import { seedWork, type WorkFixture } from './work.fixtures.js';

interface Entry {
  cursor: string;
  resource: string;
  id: number;
  action: string;
  changed_at: string;
  data?: Record<string, unknown>;
}

const summary = (es: Entry[]) => es.map((e) => `${e.resource}:${e.id}:${e.action}`);

/**
 * Reads the feed to its end from `after`, in pages of `limit`. On PostgreSQL an entry shows
 * once every older transaction has ended, also those of other test files on the server, so a
 * reader that expects entries (`want`: how many, or which) asks again for a moment.
 */
async function drain(api: Api, after?: string, limit = 100, want: number | string[] = 0) {
  const entries: Entry[] = [];
  let cursor = after;
  for (let tries = 0; ; ) {
    const res: Response = await api.get(`/changes?limit=${limit}${cursor ? `&after=${cursor}` : ''}`);
    assert.equal(res.status, 200, res.text);
    entries.push(...res.body.data);
    cursor = res.body.meta.next_cursor;
    if (res.body.meta.has_more) continue;
    const keys = summary(entries);
    const enough = typeof want === 'number' ? entries.length >= want : want.every((k) => keys.includes(k));
    if (enough || ++tries > 50) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return { entries, cursor: cursor! };
}

describeEachDb('change feed', (ctx) => {
  let all: Api;
  let w: WorkFixture;
  let start: string;

  before(async () => {
    w = await seedWork(ctx);
    all = await ctx.as(
      'client:read client:write contact-data:read contact-data:write task-management:read task-management:write outgoing-invoice:read outgoing-invoice:write outgoing-invoice:force-delete integration',
    );
    // Start after the seed: on PostgreSQL its entries show only once every older transaction of
    // the server has ended, so wait for a change made after it rather than take an early cursor.
    const marker = await makeClient(all, { name: 'Feed start' });
    start = (await drain(all, undefined, 100, [`client:${marker}:created`])).cursor;
  });

  it('creation, update, archival and restore of a client, with the data its GET answers', async () => {
    const id = await makeClient(all, { name: 'Feed GmbH' });
    assert.equal((await all.request('PATCH', `/clients/${id}`, { name: 'Feed AG' })).status, 200);
    assert.equal((await all.delete(`/clients/${id}`)).status, 204);
    assert.equal((await all.post(`/clients/${id}/restore`)).status, 200);
    const { entries, cursor } = await drain(all, start, 100, 4);
    assert.deepEqual(summary(entries), [
      `client:${id}:created`,
      `client:${id}:updated`,
      `client:${id}:archived`,
      `client:${id}:restored`,
    ]);
    const now = (await all.get(`/clients/${id}`)).body.data;
    for (const e of entries) {
      assert.deepEqual(e.data, now, 'every entry shows the current state');
      assert.match(e.changed_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    }
    // A token that holds no client: scope sees the basic form, exactly as its GET would.
    const basic = await ctx.as([]);
    const seen = (await drain(basic, start, 100, 4)).entries;
    assert.deepEqual(seen[0]!.data, (await basic.get(`/clients/${id}`)).body.data);
    assert.equal(seen[0]!.data!.email, undefined);
    start = cursor;
  });

  it('every deletion kind: comment with its file, webhook, outgoing invoice; archivals of task, company, contact', async () => {
    const comment = (await all.post('/tasks/comments', { task_id: w.tasks.shop, content: 'to go' })).body
      .data;
    const f = await multipart({ name: 'a.png', type: 'image/png', data: Buffer.from('\x89PNG\r\n\x1a\nxx') });
    const up = await all.request('POST', `/tasks/comments/${comment.id}/upload`, f.body, f.headers);
    assert.equal(up.status, 201, up.text);
    const fileId = up.body.data.id as number;
    assert.equal((await all.delete(`/tasks/comments/${comment.id}`)).status, 204);

    const hook = await all.post('/webhooks', {
      url: 'https://hooks.example.com/feed',
      scopes: ['task:create'],
    });
    assert.equal(hook.status, 201, hook.text);
    assert.equal((await all.delete(`/webhooks/${hook.body.data.id}`)).status, 204);

    const client = await makeClient(all);
    const inv = await all.post('/outgoing-invoices', { client_id: client, line_items: [line(10)] });
    assert.equal(inv.status, 201, inv.text);
    assert.equal((await all.delete(`/outgoing-invoices/${inv.body.data.id}`)).status, 204);

    assert.equal((await all.delete(`/tasks/${w.tasks.wireframes}`)).status, 204);
    const company = (await all.post('/companies', { name: 'Gone Ltd' })).body.data.id;
    const contact = (
      await all.post('/contacts', { first_name: 'Ann', last_name: 'Gone', company_id: company })
    ).body.data.id;
    assert.equal((await all.delete(`/contacts/${contact}`)).status, 204);
    assert.equal((await all.delete(`/companies/${company}`)).status, 204);

    const wanted = [
      `comment:${comment.id}:created`,
      `file:${fileId}:created`,
      `file:${fileId}:deleted`,
      `comment:${comment.id}:deleted`,
      `webhook:${hook.body.data.id}:created`,
      `webhook:${hook.body.data.id}:deleted`,
      `outgoing_invoice:${inv.body.data.id}:created`,
      `outgoing_invoice:${inv.body.data.id}:deleted`,
      `task:${w.tasks.wireframes}:archived`,
      `contact:${contact}:archived`,
      `company:${company}:archived`,
    ];
    const { entries, cursor } = await drain(all, start, 100, wanted);
    const s = summary(entries);
    for (const want of wanted) assert.ok(s.includes(want), `${want} in ${s.join(' ')}`);
    assert.ok(
      s.indexOf(`file:${fileId}:deleted`) < s.indexOf(`comment:${comment.id}:deleted`),
      'commit order',
    );
    for (const e of entries) {
      if (e.action === 'deleted') assert.equal(e.data, undefined, `${e.resource} deleted: no data`);
    }
    // The comment is gone: its earlier entries have no data either (its deletion follows).
    assert.equal(entries.find((e) => e.resource === 'comment')!.data, undefined);
    const task = entries.find((e) => e.resource === 'task')!;
    assert.deepEqual(task.data, (await all.get(`/tasks/${w.tasks.wireframes}`)).body.data);
    assert.ok(task.data!.archived_at);
    start = cursor;
  });

  it('efforts, custom fields, payment accounts and the chart of accounts: created, updated, deleted, for the tokens their GET allows', async () => {
    const accountId = ctx.account.accountId;
    const { email } = await ctx.db
      .selectFrom('users')
      .select('email')
      .where('id', '=', ctx.account.users.admin)
      .executeTakeFirstOrThrow();
    // They come in through the import only (no API writes them).
    await importData(
      ctx.db,
      {
        efforts: [
          { user: email, date: '2031-01-15', duration_minutes: 30, description: 'feed work' },
          { user: email, date: '2031-01-15', duration_minutes: 15, type: 'admin', description: 'feed admin' },
        ],
        custom_fields: [{ entity: 'contact', key: 'feed_field', label: 'Feed', type: 'text' }],
        payment_accounts: [{ name: 'Feed bank', iban: 'DE89370400440532013000' }],
        chart_of_accounts: [{ number: '4999', name: 'Feed costs', type: 'expense', tax_rate: 19 }],
      },
      { accountId },
    );
    const idBy = async (
      table: 'efforts' | 'custom_field_definitions' | 'payment_accounts' | 'chart_of_accounts',
      col: 'description' | 'key' | 'name' | 'number',
      value: string,
    ) =>
      (
        await ctx.db
          .selectFrom(table)
          .select('id')
          .where('account_id', '=', accountId)
          .where(col as 'id', '=', value as never)
          .executeTakeFirstOrThrow()
      ).id;
    const work = await idBy('efforts', 'description', 'feed work');
    const admin = await idBy('efforts', 'description', 'feed admin');
    const field = await idBy('custom_field_definitions', 'key', 'feed_field');
    const bank = await idBy('payment_accounts', 'name', 'Feed bank');
    const chart = await idBy('chart_of_accounts', 'number', '4999');
    await ctx.db.updateTable('efforts').set({ duration_minutes: 45 }).where('id', '=', work).execute();
    await ctx.db
      .updateTable('custom_field_definitions')
      .set({ label: 'Feed 2' })
      .where('id', '=', field)
      .execute();
    await ctx.db
      .updateTable('payment_accounts')
      .set({ bank_name: 'Feedbank' })
      .where('id', '=', bank)
      .execute();
    await ctx.db.updateTable('chart_of_accounts').set({ active: 0 }).where('id', '=', chart).execute();

    const wide = await ctx.as(
      'efforts:read efforts:extended:read payments:read chart-of-accounts:read integration',
    );
    const keys = [
      `effort:${work}`,
      `effort:${admin}`,
      `custom_field:${field}`,
      `payment_account:${bank}`,
      `chart_of_account:${chart}`,
    ];
    const made = keys.flatMap((k) => [`${k}:created`, ...(k === `effort:${admin}` ? [] : [`${k}:updated`])]);
    const { entries } = await drain(wide, start, 100, made);
    const item = async (path: string, id: number) =>
      (await wide.get(`${path}?per_page=100`)).body.data.find((r: { id: number }) => r.id === id);
    const expected: Record<string, unknown> = {
      [`effort:${work}`]: await item('/efforts', work),
      [`effort:${admin}`]: await item('/efforts', admin),
      [`custom_field:${field}`]: await item('/custom-fields', field),
      [`payment_account:${bank}`]: await item('/payment-accounts', bank),
      [`chart_of_account:${chart}`]: (await wide.get(`/chart-of-accounts/${chart}`)).body.data,
    };
    for (const k of keys) {
      const mine = entries.filter((e) => `${e.resource}:${e.id}` === k);
      assert.ok(mine.length > 0, `${k} in ${summary(entries).join(' ')}`);
      assert.ok(expected[k], `${k} listed`);
      for (const e of mine) assert.deepEqual(e.data, expected[k], `${k}: the data its GET answers`);
    }
    assert.equal((expected[`effort:${work}`] as { duration_minutes: number }).duration_minutes, 45);
    assert.equal((expected[`chart_of_account:${chart}`] as { active: boolean }).active, false);

    // Without `efforts:extended:read` the admin effort is left out, as in the list; without
    // a kind's scope none of it shows.
    const plain = summary(
      (await drain(await ctx.as('efforts:read'), start, 100, [`effort:${work}:updated`])).entries,
    );
    assert.ok(plain.includes(`effort:${work}:updated`), plain.join(' '));
    assert.ok(!plain.some((e) => e.startsWith(`effort:${admin}:`)), plain.join(' '));
    assert.ok(
      !plain.some((e) => /^(custom_field|payment_account|chart_of_account):/.test(e)),
      plain.join(' '),
    );
    const none = summary((await drain(await ctx.as('client:read'), start, 100)).entries);
    assert.ok(
      !none.some((e) => /^(effort|custom_field|payment_account|chart_of_account):/.test(e)),
      none.join(' '),
    );

    await ctx.db.deleteFrom('efforts').where('id', 'in', [work, admin]).execute();
    await ctx.db.deleteFrom('custom_field_definitions').where('id', '=', field).execute();
    await ctx.db.deleteFrom('payment_accounts').where('id', '=', bank).execute();
    await ctx.db.deleteFrom('chart_of_accounts').where('id', '=', chart).execute();
    const deleted = keys.map((k) => `${k}:deleted`);
    const after = await drain(wide, start, 100, deleted);
    for (const e of after.entries.filter((x) => keys.includes(`${x.resource}:${x.id}`)))
      assert.equal(e.data, undefined, `${e.resource}:${e.id}:${e.action} once deleted: no data`);
    const byPayments = summary(
      (await drain(await ctx.as('payments:read'), start, 100, [`payment_account:${bank}:deleted`])).entries,
    );
    assert.ok(byPayments.includes(`payment_account:${bank}:deleted`));
    assert.ok(
      !byPayments.some((e) => /^(effort|custom_field|chart_of_account):/.test(e)),
      byPayments.join(' '),
    );
    start = after.cursor;
  });

  it('filters by the scopes of the token, another integration’s webhooks and other accounts', async () => {
    const clientsOnly = await ctx.as('client:read');
    const other = await ctx.as('integration');
    const stranger = await ctx.as('client:read client:write task-management:read', {
      accountId: ctx.other.accountId,
    });
    const mine = await all.post('/webhooks', {
      url: 'https://hooks.example.com/mine',
      scopes: ['task:create'],
    });
    const theirs = await other.post('/webhooks', {
      url: 'https://hooks.example.com/theirs',
      scopes: ['task:create'],
    });
    await all.post('/tasks/comments', { task_id: w.tasks.shop, content: 'hidden from clients only' });
    const client = await makeClient(all);
    const last = `client:${client}:created`;

    // `start` is where the previous test's changes ended.
    const seen = summary((await drain(clientsOnly, start, 100, [last])).entries);
    assert.deepEqual(seen, [last]);
    const byOther = summary((await drain(other, start, 100, [last])).entries).filter((e) =>
      e.startsWith('webhook'),
    );
    assert.deepEqual(byOther, [`webhook:${theirs.body.data.id}:created`]);
    const everything = await drain(all, start, 100, [last]);
    const byAll = summary(everything.entries).filter((e) => e.startsWith('webhook'));
    assert.deepEqual(byAll, [`webhook:${mine.body.data.id}:created`]);
    const strangers = summary((await drain(stranger)).entries);
    assert.ok(strangers.length > 0, 'the other account’s own changes');
    for (const e of summary(everything.entries))
      assert.ok(!strangers.includes(e), `${e} not in another account`);
    start = everything.cursor;
  });

  it('pages with limit and cursors: the same entries, none twice, and an entry’s cursor resumes after it', async () => {
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push(`client:${await makeClient(all)}:created`);
    // Once these show, nothing else of this account is still to come.
    const whole = (await drain(all, undefined, 1000, made)).entries;
    const paged = (await drain(all, undefined, 3, whole.length)).entries;
    assert.deepEqual(summary(paged), summary(whole));
    assert.equal(new Set(paged.map((e) => e.cursor)).size, paged.length);
    const mid = whole[Math.floor(whole.length / 2)]!;
    const rest = (await drain(all, mid.cursor, 1000)).entries;
    assert.deepEqual(summary(rest), summary(whole.slice(whole.indexOf(mid) + 1)));
    const first = await all.get('/changes?limit=1');
    assert.equal(first.body.data.length, 1);
    assert.equal(first.body.meta.has_more, true);
    const end = await all.get(`/changes?after=${whole.at(-1)!.cursor}`);
    assert.deepEqual(end.body, { data: [], meta: { next_cursor: whole.at(-1)!.cursor, has_more: false } });
  });

  it('the company profile: its changes for an administrator’s token with account:read, none for a member’s', async () => {
    const admin = await ctx.as('account:read account:write');
    const member = await ctx.as('account:read', { userId: ctx.account.users.member });
    const changed = await admin.patch('/account/profile', { city: 'Feedhausen' });
    assert.equal(changed.status, 200, changed.text);
    const key = `account_profile:${ctx.account.accountId}:updated`;
    const { entries, cursor } = await drain(admin, start, 100, [key]);
    const entry = entries.find((e) => `${e.resource}:${e.id}:${e.action}` === key)!;
    assert.deepEqual(entry.data, (await admin.get('/account/profile')).body.data);
    assert.equal(entry.data!.city, 'Feedhausen');
    const byMember = summary((await drain(member, start)).entries);
    assert.ok(!byMember.some((e) => e.startsWith('account_profile')), byMember.join(' '));
    start = cursor;
  });

  it('401 without a valid token; 422 on a bad cursor, limit or parameter; 404 elsewhere', async () => {
    expectProblem(await ctx.anon.get('/changes'), 401, 'unauthorized');
    for (const q of ['after=nope!', 'after=bm9wZQ', 'limit=0', 'limit=1001', 'limit=x', 'since=1']) {
      expectProblem(await all.get(`/changes?${q}`), 422, 'validation_failed');
    }
    const p = expectProblem(await all.get(`/changes?after=${Buffer.from('1.x').toString('base64url')}`), 422);
    assert.equal(p.errors![0]!.field, 'after');
    expectProblem(await all.get('/changes/1'), 404);
  });
});
