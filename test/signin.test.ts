import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import type { DbHandle } from '../src/db/index.js';
import { seedDemoIfEmpty } from '../src/import/demo.js';
import { importData } from '../src/import/index.js';
import { hashPassword } from '../src/modules/users/passwords.js';
import { inviteUser, setPassword } from '../src/modules/users/passwords.service.js';
import { hashToken } from '../src/plugins/auth.js';
import { clock } from '../src/web/clock.js';
import {
  MAX_FAILURES_PER_ADDRESS,
  MAX_FAILURES_PER_EMAIL,
  recordFailure,
  THROTTLE_WINDOW_MS,
} from '../src/web/throttle.js';
import { createAccount, createTestDb, DB_KINDS, describeEachDb, testConfig } from './helpers.js';
import { Browser, pageError } from './web-client.js';

const PASSWORD = 'correct horse battery staple';
const realNow = clock.now;
let seq = 0;
/** A distinct client address per test, so that address throttling of one test does not meet another. */
const address = () => `10.0.${Math.floor(++seq / 250)}.${seq % 250}`;

describeEachDb('sign-in pages', (ctx) => {
  let adminEmail: string;
  let memberEmail: string;
  const browser = () => new Browser(ctx.app, { remoteAddress: address() });

  before(async () => {
    const users = await ctx.db
      .selectFrom('users')
      .select(['id', 'email'])
      .where('account_id', '=', ctx.account.accountId)
      .execute();
    adminEmail = users.find((u) => u.id === ctx.account.users.admin)!.email;
    memberEmail = users.find((u) => u.id === ctx.account.users.member)!.email;
    await setPassword(ctx.db, ctx.account.users.admin, PASSWORD);
    await setPassword(ctx.db, ctx.account.users.member, PASSWORD);
  });
  afterEach(() => {
    clock.now = realNow;
  });

  it('signs in with e-mail and password: an HttpOnly, SameSite=Lax session cookie, then the signed-in page', async () => {
    const b = browser();
    const form = await b.get('/signin');
    assert.equal(form.status, 200);
    assert.match(String(form.headers['content-type']), /^text\/html/);
    assert.match(form.body, /<label for="email">E-mail<\/label>/);
    assert.match(form.body, /<label for="password">Password<\/label>/);
    const res = await b.post('/signin', { email: adminEmail.toUpperCase(), password: PASSWORD });
    assert.equal(res.status, 303);
    // Without a page to return to an admin lands on the console (issue 13).
    assert.equal(res.location, '/console');
    const cookie = Browser.setCookies(res).find((c) => c.startsWith('sid='));
    assert.ok(cookie, 'a session cookie is set');
    assert.match(cookie, /; HttpOnly/);
    assert.match(cookie, /; SameSite=Lax/);
    assert.match(cookie, /; Path=\//);
    assert.doesNotMatch(cookie, /Secure/, 'not Secure over plain http');
    assert.doesNotMatch(cookie, /Max-Age|Expires/, 'ends with the browser');
    const me = await b.get('/me');
    assert.equal(me.status, 200);
    assert.match(me.body, /You are signed in as Ada Admin\./);
    assert.match(me.body, new RegExp(adminEmail.replace('.', '\\.')));
    // The session row holds a hash of the cookie, never the cookie itself.
    const value = cookie.slice(4, cookie.indexOf(';'));
    const rows = await ctx.db
      .selectFrom('web_sessions')
      .selectAll()
      .where('user_id', '=', ctx.account.users.admin)
      .execute();
    assert.ok(rows.some((r) => r.id_hash === hashToken(value)));
    assert.ok(rows.every((r) => r.id_hash !== value));
  });

  it('pages carry security headers: CSP without scripts, no framing, referrer policy, no caching', async () => {
    const page = await browser().get('/signin');
    const csp = String(page.headers['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /script-src/);
    assert.doesNotMatch(page.body, /<script/);
    assert.equal(page.headers['x-frame-options'], 'DENY');
    assert.equal(page.headers['referrer-policy'], 'same-origin');
    assert.equal(page.headers['cache-control'], 'no-store');
    const css = await browser().get('/assets/web.css');
    assert.equal(css.status, 200);
    assert.match(String(css.headers['content-type']), /^text\/css/);
  });

  it('speaks German to a browser that prefers it', async () => {
    const b = new Browser(ctx.app, { remoteAddress: address(), lang: 'de-DE,de;q=0.9,en;q=0.8' });
    const page = await b.get('/signin');
    assert.match(page.body, /<html lang="de">/);
    assert.match(page.body, /<label for="password">Passwort<\/label>/);
    const failed = await b.post('/signin', { email: adminEmail, password: 'wrong password' });
    assert.equal(pageError(failed), 'E-Mail-Adresse oder Passwort ist falsch.');
    assert.match(
      (await new Browser(ctx.app, { lang: 'fr, en;q=0.5' }).get('/signin')).body,
      /<html lang="en">/,
    );
  });

  it('a wrong password and an unknown e-mail get the same answer, in about the same time', async () => {
    const b = browser();
    const timed = async (email: string) => {
      await b.get('/signin');
      const t0 = performance.now();
      const page = await b.post('/signin', { email, password: 'not the password' });
      return { page, ms: performance.now() - t0 };
    };
    // The first unknown e-mail of a process also makes the dummy hash it is checked against
    // (two hashes): not measured. Then three of each, compared by their medians, so that one
    // slow moment of a busy machine does not decide.
    await timed('first@nowhere.example');
    const wrong = [];
    const unknown = [];
    for (let i = 0; i < 3; i++) {
      wrong.push(await timed(memberEmail));
      unknown.push(await timed(`nobody${i}@nowhere.example`));
    }
    for (const r of [...wrong, ...unknown]) {
      assert.equal(r.page.status, 401);
      assert.equal(pageError(r.page), 'The e-mail or the password is wrong.');
    }
    // Both verify a scrypt hash (the unknown e-mail a dummy one): neither is quick.
    const median = (xs: { ms: number }[]) =>
      xs.map((x) => x.ms).sort((a, c) => a - c)[Math.floor(xs.length / 2)]!;
    const ratio = median(unknown) / median(wrong);
    assert.ok(
      ratio > 0.4 && ratio < 2.5,
      `unknown e-mail ${median(unknown)} ms vs wrong password ${median(wrong)} ms`,
    );
    // Their failures are cleared by a good sign-in (other tests sign in as the member).
    assert.equal((await b.signIn(memberEmail, PASSWORD)).status, 303);
  });

  it('an inactive user cannot sign in, and a session ends as soon as the user is deactivated', async () => {
    const acct = await createAccount(ctx.db);
    const user = await ctx.db
      .selectFrom('users')
      .select(['id', 'email'])
      .where('id', '=', acct.users.member)
      .executeTakeFirstOrThrow();
    await setPassword(ctx.db, user.id, PASSWORD);
    const b = browser();
    assert.equal((await b.signIn(user.email, PASSWORD)).status, 303);
    assert.equal((await b.get('/me')).status, 200);
    await ctx.db.updateTable('users').set({ active: 0 }).where('id', '=', user.id).execute();
    const after = await b.get('/me');
    assert.equal(after.status, 303);
    assert.equal(after.location, '/signin?return_to=%2Fme');
    const refused = await browser().signIn(user.email, PASSWORD);
    assert.equal(refused.status, 401);
    assert.equal(pageError(refused), 'The e-mail or the password is wrong.');
    // A user whose account is deleted: the session is gone with it.
    await ctx.db.updateTable('users').set({ active: 1 }).where('id', '=', user.id).execute();
    const c = browser();
    assert.equal((await c.signIn(user.email, PASSWORD)).status, 303);
    await ctx.db.deleteFrom('accounts').where('id', '=', acct.accountId).execute();
    assert.equal((await c.get('/me')).status, 303);
  });

  it('a form without the CSRF token, with a wrong one or from another origin is refused with 403', async () => {
    const b = browser();
    await b.get('/signin');
    const missing = await b.post('/signin', { _csrf: '', email: adminEmail, password: PASSWORD });
    assert.equal(missing.status, 403);
    assert.match(missing.body, /The form has expired or was not sent from this site/);
    assert.equal(Browser.setCookies(missing).filter((c) => c.startsWith('sid=')).length, 0);
    assert.equal(
      (await b.post('/signin', { _csrf: 'x'.repeat(43), email: adminEmail, password: PASSWORD })).status,
      403,
    );
    const foreign = await b.post(
      '/signin',
      { email: adminEmail, password: PASSWORD },
      { origin: 'https://evil.example' },
    );
    assert.equal(foreign.status, 403);
    const foreignReferer = await b.post(
      '/signin',
      { email: adminEmail, password: PASSWORD },
      { referer: 'https://evil.example/x' },
    );
    assert.equal(foreignReferer.status, 403);
    // A token from another browser (bound to its cookie) does not fit this one.
    const other = browser();
    await other.get('/signin');
    assert.equal(
      (await b.post('/signin', { _csrf: other.csrf(), email: adminEmail, password: PASSWORD })).status,
      403,
    );
    // Sign-out is a form too.
    assert.equal((await b.signIn(adminEmail, PASSWORD, '/me')).status, 303);
    assert.equal((await b.post('/signout', { _csrf: '' })).status, 403);
    assert.equal((await b.get('/me')).status, 200, 'still signed in');
    // The same form from our own origin passes.
    const ok = await b.post('/signout', {}, { origin: 'http://localhost:3000' });
    assert.equal(ok.status, 303);
  });

  it('throttles failed sign-ins per e-mail (5 per 15 min) with 429, then lets the user in after the window', async () => {
    let now = Date.now();
    clock.now = () => now;
    const acct = await createAccount(ctx.db);
    const user = await ctx.db
      .selectFrom('users')
      .select(['id', 'email'])
      .where('id', '=', acct.users.admin)
      .executeTakeFirstOrThrow();
    await setPassword(ctx.db, user.id, PASSWORD);
    for (let i = 0; i < MAX_FAILURES_PER_EMAIL; i++) {
      // From changing addresses: the e-mail's count is what stops them.
      const res = await browser().signIn(user.email, `guess ${i}`);
      assert.equal(res.status, 401);
      now += 1000;
    }
    const locked = await browser().signIn(user.email, PASSWORD);
    assert.equal(locked.status, 429);
    assert.match(pageError(locked) ?? '', /Too many failed attempts\. Please wait \d+ minutes/);
    const retry = Number(locked.headers['retry-after']);
    assert.ok(retry > 0 && retry <= THROTTLE_WINDOW_MS / 1000, `Retry-After ${retry}`);
    assert.equal(Browser.setCookies(locked).filter((c) => c.startsWith('sid=')).length, 0);
    // An unknown e-mail is throttled alike: the 429 tells nothing about who exists.
    for (let i = 0; i < MAX_FAILURES_PER_EMAIL; i++)
      await browser().signIn('ghost@nowhere.example', `guess ${i}`);
    assert.equal((await browser().signIn('ghost@nowhere.example', PASSWORD)).status, 429);
    // Once the first failure has left the window, the right password works.
    now += THROTTLE_WINDOW_MS;
    const b = browser();
    assert.equal((await b.signIn(user.email, PASSWORD)).status, 303);
    assert.equal((await b.get('/me')).status, 200);
  });

  it('throttles failed sign-ins per client address (20 per 15 min), whatever the e-mails', async () => {
    let now = Date.now();
    clock.now = () => now;
    const ip = address();
    const b = new Browser(ctx.app, { remoteAddress: ip });
    // All but the last failure recorded as the page records them (each page attempt costs a
    // scrypt hash); the last one through the page.
    for (let i = 0; i < MAX_FAILURES_PER_ADDRESS - 1; i++) {
      await recordFailure(ctx.db, `someone${i}@spray.example`, ip);
      now += 100;
    }
    assert.equal((await b.signIn('someone-else@spray.example', 'guess')).status, 401);
    assert.equal(
      (await b.signIn(adminEmail, PASSWORD)).status,
      429,
      'even a right password from that address',
    );
    assert.equal(
      (await browser().signIn(adminEmail, PASSWORD)).status,
      303,
      'another address is not affected',
    );
    now += THROTTLE_WINDOW_MS;
    assert.equal((await b.signIn(adminEmail, PASSWORD)).status, 303);
  });

  it('an invitation link sets the password once, signs the user in, and expires', async () => {
    const inv = await inviteUser(
      ctx.db,
      {
        email: 'invited@test.example',
        accountId: ctx.account.accountId,
        firstName: 'Ina',
        lastName: 'Vited',
      },
      'http://localhost:3000',
    );
    assert.equal(inv.created_user, true);
    const path = new URL(inv.url).pathname;
    assert.match(path, /^\/invite\/[\w-]{43}$/);
    const stored = await ctx.db
      .selectFrom('user_invites')
      .select('token_hash')
      .where('user_id', '=', inv.user_id)
      .execute();
    assert.deepEqual(stored, [{ token_hash: hashToken(path.slice(8)) }], 'only the hash is stored');

    const b = browser();
    const form = await b.get(path);
    assert.equal(form.status, 200);
    assert.match(form.body, /Choose a password for invited@test\.example\./);
    assert.equal(form.headers['referrer-policy'], 'no-referrer');
    const short = await b.post(path, { password: 'short', password_confirm: 'short' });
    assert.equal(short.status, 422);
    assert.equal(pageError(short), 'The password must be at least 10 characters long.');
    await b.get(path);
    const differ = await b.post(path, { password: PASSWORD, password_confirm: `${PASSWORD}!` });
    assert.equal(pageError(differ), 'The two passwords differ.');
    await b.get(path);
    const done = await b.post(path, { password: PASSWORD, password_confirm: PASSWORD });
    assert.equal(done.status, 303);
    assert.equal(done.location, '/me');
    assert.match((await b.get('/me')).body, /You are signed in as Ina Vited\./);
    // Used once: the link is gone, for the same browser and any other.
    assert.equal((await b.get(path)).status, 410);
    const again = browser();
    assert.match((await again.get(path)).body, /This link has expired or has already been used/);
    assert.equal((await browser().signIn('invited@test.example', PASSWORD)).status, 303);

    // A link not used within 72 hours no longer works.
    const late = await inviteUser(
      ctx.db,
      { email: memberEmail, accountId: ctx.account.accountId },
      'http://localhost:3000',
    );
    assert.equal(late.created_user, false);
    const latePath = new URL(late.url).pathname;
    const c = browser();
    assert.equal((await c.get(latePath)).status, 200);
    clock.now = () => realNow() + 72 * 3600_000 + 1000;
    assert.equal((await c.get(latePath)).status, 410);
    clock.now = realNow;
    // A new link replaces the one before.
    const first = await inviteUser(
      ctx.db,
      { email: memberEmail, accountId: ctx.account.accountId },
      'http://x',
    );
    await inviteUser(ctx.db, { email: memberEmail, accountId: ctx.account.accountId }, 'http://x');
    assert.equal((await browser().get(new URL(first.url).pathname)).status, 410);
  });

  it('sign-out ends the session: the cookie is cleared and the old value no longer works', async () => {
    const b = browser();
    assert.equal((await b.signIn(adminEmail, PASSWORD)).status, 303);
    const sid = b.jar.get('sid')!;
    const me = await b.get('/me');
    assert.match(me.body, /action="\/signout"/);
    const out = await b.post('/signout');
    assert.equal(out.status, 303);
    assert.equal(out.location, '/signin?signed_out');
    assert.ok(Browser.setCookies(out).some((c) => /^sid=;.*Max-Age=0/.test(c)));
    assert.match((await b.get('/signin?signed_out')).body, /You have signed out\./);
    const replay = new Browser(ctx.app);
    replay.jar.set('sid', sid);
    assert.equal((await replay.get('/me')).status, 303);
    const row = await ctx.db
      .selectFrom('web_sessions')
      .select('id_hash')
      .where('id_hash', '=', hashToken(sid))
      .executeTakeFirst();
    assert.equal(row, undefined);
  });

  it('signing in issues a new session id: a cookie planted before sign-in is not the session (no fixation)', async () => {
    // An id planted in the victim's browser before sign-in (by a sibling domain, a shared computer…).
    const victim = browser();
    victim.jar.set('sid', 'planted-by-the-attacker-0123456789');
    await victim.get('/signin');
    const res = await victim.post('/signin', { email: adminEmail, password: PASSWORD });
    assert.equal(res.status, 303);
    const fresh = victim.jar.get('sid')!;
    assert.notEqual(fresh, 'planted-by-the-attacker-0123456789');
    assert.match((await victim.get('/me')).body, /Ada Admin/);
    const probe = new Browser(ctx.app);
    probe.jar.set('sid', 'planted-by-the-attacker-0123456789');
    assert.equal((await probe.get('/me')).status, 303, 'the planted id is no session');
    // A session the browser had before is ended by the new sign-in (invitation: same path).
    const inv = await inviteUser(
      ctx.db,
      { email: memberEmail, accountId: ctx.account.accountId },
      'http://x',
    );
    const before = victim.jar.get('sid')!;
    const path = new URL(inv.url).pathname;
    await victim.get(path);
    assert.equal((await victim.post(path, { password: PASSWORD, password_confirm: PASSWORD })).status, 303);
    assert.notEqual(victim.jar.get('sid'), before);
    const old = new Browser(ctx.app);
    old.jar.set('sid', before);
    assert.equal((await old.get('/me')).status, 303);
  });

  it('return_to: back to the page that asked, only paths of this site', async () => {
    const b = browser();
    const gate = await b.get('/me');
    assert.equal(gate.location, '/signin?return_to=%2Fme');
    const page = await b.get('/signin?return_to=%2Foauth%2Fauthorize%3Fclient_id%3Dx%26state%3Dy');
    assert.match(page.body, /name="return_to" value="\/oauth\/authorize\?client_id=x&amp;state=y"/);
    const res = await b.post('/signin', {
      email: adminEmail,
      password: PASSWORD,
      return_to: '/oauth/authorize?client_id=x&state=y',
    });
    assert.equal(res.location, '/oauth/authorize?client_id=x&state=y');
    for (const evil of [
      '//evil.example/x',
      'https://evil.example/',
      '/\\evil.example',
      'javascript:alert(1)',
      '/%0d%0aSet-Cookie:x',
    ]) {
      const c = browser();
      await c.get('/signin');
      const r = await c.post('/signin', { email: adminEmail, password: PASSWORD, return_to: evil });
      assert.equal(r.status, 303);
      // Percent-encoded line breaks stay encoded: a path of this site, no header injection.
      assert.ok(
        r.location === '/console' || r.location === '/%0d%0aSet-Cookie:x',
        `${evil} -> ${r.location}`,
      );
    }
    // Signed in already: the sign-in page goes straight on.
    assert.equal((await b.get('/signin?return_to=%2Fme')).location, '/me');
  });
});

describeEachDb(
  'sign-in over https',
  (ctx) => {
    it('the session cookie is Secure and __Host- prefixed when the service is public over https', async () => {
      await setPassword(ctx.db, ctx.account.users.admin, PASSWORD);
      const email = (
        await ctx.db
          .selectFrom('users')
          .select('email')
          .where('id', '=', ctx.account.users.admin)
          .executeTakeFirstOrThrow()
      ).email;
      const b = new Browser(ctx.app);
      const form = await b.get('/signin');
      assert.ok(Browser.setCookies(form).every((c) => c.startsWith('__Host-csrf=') && /; Secure/.test(c)));
      const res = await b.post('/signin', { email, password: PASSWORD }, { origin: 'https://app.example' });
      assert.equal(res.status, 303);
      const cookie = Browser.setCookies(res).find((c) => c.startsWith('__Host-sid='));
      assert.ok(cookie);
      assert.match(cookie, /; Secure/);
      assert.match(cookie, /; HttpOnly/);
      assert.match(cookie, /; SameSite=Lax/);
      assert.match(cookie, /; Path=\//);
      assert.equal((await b.get('/me')).status, 200);
    });
  },
  { config: { publicUrl: 'https://app.example' } },
);

for (const kind of DB_KINDS) {
  describe(`passwords from the import and the demo data [${kind}]`, () => {
    let handle: DbHandle;
    let app: FastifyInstance;
    before(async () => {
      handle = await createTestDb(kind);
      app = await buildApp(testConfig(), { db: handle, logger: false });
    });
    after(async () => {
      await app.close();
      await handle.destroy();
    });

    it('the demo admin gets a random password, announced once, with which they sign in', async () => {
      const lines: string[] = [];
      await seedDemoIfEmpty(handle.db, (line) => lines.push(line));
      assert.equal(lines.length, 1);
      const m = /sign in at \/signin as (ada@demo\.example) with the password (\S+) /.exec(lines[0]!);
      assert.ok(m, lines[0]);
      const b = new Browser(app);
      assert.equal((await b.signIn(m[1]!, m[2]!)).status, 303);
      assert.match((await b.get('/me')).body, /Ada Lovelace/);
    });

    it('the import takes a password hash (never a password) to move users between installations', async () => {
      const hash = await hashPassword(PASSWORD);
      await importData(handle.db, {
        account: { name: 'Moved' },
        users: [{ email: 'moved@test.example', first_name: 'Mo', last_name: 'Ved', password_hash: hash }],
      });
      assert.equal((await new Browser(app).signIn('moved@test.example', PASSWORD)).status, 303);
      await assert.rejects(
        importData(handle.db, {
          account: { name: 'Plain' },
          users: [{ email: 'plain@test.example', first_name: 'P', last_name: 'L', password_hash: PASSWORD }],
        }),
        /password_hash/,
      );
      // Absurd parameters in a stored hash are no match, not a process allocating gigabytes.
      await importData(handle.db, {
        account: { name: 'Huge' },
        users: [
          {
            email: 'huge@test.example',
            first_name: 'H',
            last_name: 'U',
            password_hash: 'scrypt$1073741824$8$1$AAAA$AAAA',
          },
        ],
      });
      assert.equal((await new Browser(app).signIn('huge@test.example', PASSWORD)).status, 401);
    });
  });
}
