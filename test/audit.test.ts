import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { listAuditEntries, recordAudit } from '../src/modules/audit/audit.service.js';
import { setPassword } from '../src/modules/users/passwords.service.js';
import { describeEachDb } from './helpers.js';
import { Browser } from './web-client.js';

const PASSWORD = 'correct horse battery staple';

describeEachDb('audit log and console frame', (ctx) => {
  let adminEmail: string;
  let memberEmail: string;
  const emailOf = async (id: number) =>
    (await ctx.db.selectFrom('users').select('email').where('id', '=', id).executeTakeFirstOrThrow()).email;

  before(async () => {
    await setPassword(ctx.db, ctx.account.users.admin, PASSWORD);
    await setPassword(ctx.db, ctx.account.users.member, PASSWORD);
    adminEmail = await emailOf(ctx.account.users.admin);
    memberEmail = await emailOf(ctx.account.users.member);
  });

  it('records entries in the caller’s transaction and lists them newest first, paged, per account', async () => {
    await recordAudit(ctx.db, {
      accountId: ctx.account.accountId,
      actorUserId: ctx.account.users.admin,
      actorKind: 'user',
      action: 'test.first',
      targetType: 'thing',
      targetId: 7,
      detail: { changed: ['a'] },
    });
    // Rolled back with its transaction: no entry without the change.
    await assert.rejects(
      ctx.db.transaction().execute(async (trx) => {
        await recordAudit(trx, {
          accountId: ctx.account.accountId,
          actorUserId: null,
          actorKind: 'cli',
          action: 'test.rolled_back',
          targetType: null,
          targetId: null,
        });
        throw new Error('undo');
      }),
      /undo/,
    );
    for (let i = 0; i < 3; i++) {
      await recordAudit(ctx.db, {
        accountId: ctx.account.accountId,
        actorUserId: null,
        actorKind: 'cli',
        action: `test.more${i}`,
        targetType: 'thing',
        targetId: `x${i}`,
      });
    }
    await recordAudit(ctx.db, {
      accountId: ctx.other.accountId,
      actorUserId: ctx.other.users.admin,
      actorKind: 'token',
      action: 'test.other_account',
      targetType: null,
      targetId: null,
    });
    const first = await listAuditEntries(ctx.db, ctx.account.accountId, { limit: 2 });
    assert.equal(first.total, 4);
    assert.deepEqual(
      first.entries.map((e) => e.action),
      ['test.more2', 'test.more1'],
    );
    assert.ok(first.next_before);
    const second = await listAuditEntries(ctx.db, ctx.account.accountId, {
      limit: 2,
      before: first.next_before,
    });
    assert.deepEqual(
      second.entries.map((e) => e.action),
      ['test.more0', 'test.first'],
    );
    assert.equal(second.next_before, null);
    const entry = second.entries[1]!;
    assert.equal(entry.actor_name, 'Ada Admin');
    assert.equal(entry.actor_kind, 'user');
    assert.equal(entry.target_id, '7');
    assert.deepEqual(entry.detail, { changed: ['a'] });
    assert.match(entry.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  });

  it('console: an admin lands on it after sign-in, a member goes on to their own page', async () => {
    const b = new Browser(ctx.app);
    const res = await b.signIn(adminEmail, PASSWORD);
    assert.equal(res.location, '/console');
    const dash = await b.get('/console');
    assert.equal(dash.status, 200);
    assert.match(dash.body, /<nav class="console-nav" aria-label="Console">/);
    for (const label of ['Dashboard', 'Company', 'Users', 'Integrations', 'Webhooks', 'Audit'])
      assert.match(dash.body, new RegExp(`>${label}</a>`));
    assert.match(dash.body, /href="\/console" aria-current="page"/);
    assert.match((await b.get('/me')).body, /href="\/console"/, 'the signed-in page links to the console');

    const m = new Browser(ctx.app);
    assert.equal((await m.signIn(memberEmail, PASSWORD)).location, '/console');
    assert.equal((await m.get('/console')).location, '/me');
    const refused = await m.get('/console/audit');
    assert.equal(refused.status, 403);
    assert.match(refused.body, /This page is for administrators of the account/);
  });

  it('console: without a session to sign-in and back; the language switch needs the form token', async () => {
    const anon = new Browser(ctx.app);
    const res = await anon.get('/console/audit?page=2');
    assert.equal(res.status, 303);
    assert.equal(res.location, '/signin?return_to=%2Fconsole%2Faudit%3Fpage%3D2');

    const b = new Browser(ctx.app);
    await b.signIn(adminEmail, PASSWORD);
    await b.get('/console');
    const forged = await b.post('/console/lang', { _csrf: 'forged', lang: 'de', return_to: '/console' });
    assert.equal(forged.status, 403);
    assert.match(forged.body, /The form has expired/);
    await b.get('/console');
    const switched = await b.post('/console/lang', { lang: 'de', return_to: '/console/audit' });
    assert.equal(switched.status, 303);
    assert.equal(switched.location, '/console/audit');
    const de = await b.get('/console');
    assert.match(de.body, /<html lang="de">/);
    assert.match(de.body, />Übersicht<\/a>/);
    const offsite = await b.post('/console/lang', { lang: 'en', return_to: 'https://evil.example/' });
    assert.equal(offsite.location, '/console');
    for (const odd of ['/console\r\nSet-Cookie: x=1', '/console\\evil', '/consoles'])
      assert.equal((await b.post('/console/lang', { lang: 'en', return_to: odd })).location, '/console', odd);
  });
});
