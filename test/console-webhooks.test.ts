import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { setPassword } from '../src/modules/users/passwords.service.js';
import { excerptOf } from '../src/modules/webhooks/webhooks.sender.js';
import { WebhookWorker } from '../src/modules/webhooks/webhooks.worker.js';
import { type Api, describeEachDb } from './helpers.js';
import { Browser, pageError } from './web-client.js';
import { Receiver, record, waitFor as waitForBriefly } from './webhooks.support.js';

/** Longer than the default: the worker shares the machine with other tests. */
const waitFor = (what: string, cond: () => boolean | Promise<boolean>) => waitForBriefly(what, cond, 30_000);

const PASSWORD = 'correct horse battery staple';

/** The console's webhooks pages over HTTP, with a real receiver and worker for the ping. */
describeEachDb('console: webhooks', (ctx) => {
  let admin: Browser;
  let api: Api;
  let receiver: Receiver;
  let hook: { id: number; signature_secret_key: string };
  let worker: WebhookWorker;

  const emailOf = async (id: number) =>
    (await ctx.db.selectFrom('users').select('email').where('id', '=', id).executeTakeFirstOrThrow()).email;
  const audits = (action: string) =>
    ctx.db
      .selectFrom('audit_log')
      .selectAll()
      .where('account_id', '=', ctx.account.accountId)
      .where('action', '=', action)
      .execute();
  const deliveries = () =>
    ctx.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('webhook_id', '=', hook.id)
      .orderBy('id')
      .execute();

  before(async () => {
    receiver = await new Receiver().start();
    await setPassword(ctx.db, ctx.account.users.admin, PASSWORD);
    await setPassword(ctx.db, ctx.account.users.member, PASSWORD);
    admin = new Browser(ctx.app);
    await admin.signIn(await emailOf(ctx.account.users.admin), PASSWORD);
    api = await ctx.as('integration');
    const res = await api.post('/webhooks', { url: `${receiver.url}/hook`, scopes: ['task:delete'] });
    assert.equal(res.status, 201);
    hook = res.body.data;
    worker = new WebhookWorker(ctx.db, ctx.kind, {
      secretKey: ctx.app.config.secretKey,
      allowPrivate: true,
      pollIntervalMs: 10,
      retryDelaysMs: [0, 60_000],
    });
  });
  after(async () => {
    await worker.stop();
    await receiver.stop();
  });

  it("lists the account's webhooks, whichever integration registered them; not another account's", async () => {
    const stranger = await ctx.as('integration', { accountId: ctx.other.accountId });
    await stranger.post('/webhooks', { url: 'https://other.example.com/hook', scopes: ['task:create'] });
    const page = await admin.get('/console/webhooks');
    assert.equal(page.status, 200);
    assert.match(page.body, new RegExp(`${receiver.url}/hook`));
    assert.doesNotMatch(page.body, /other\.example\.com/);
    assert.equal((await admin.get(`/console/webhooks/${hook.id + 1}`)).status, 404);
  });

  it('sends a test ping through the queue: signed, delivered, shown with status and response', async () => {
    await admin.get(`/console/webhooks/${hook.id}`);
    const res = await admin.post(`/console/webhooks/${hook.id}/ping`);
    assert.equal(res.status, 303);
    assert.equal(res.location, `/console/webhooks/${hook.id}?done=pinged`);
    worker.start();
    await waitFor('the ping', () => receiver.on('/hook').length === 1);
    const got = receiver.on('/hook')[0]!;
    const body = new Webhook(hook.signature_secret_key).verify(got.body, got.headers) as { event: string };
    assert.equal(body.event, 'ping');
    await waitFor('delivered', async () => (await deliveries())[0]?.status === 'delivered');
    const page = await admin.get(`/console/webhooks/${hook.id}`);
    assert.match(page.body, /<div>ping<span/);
    assert.match(page.body, />Delivered</);
    assert.match(page.body, /A test ping from the account console/, 'the body sent');
    assert.equal((await audits('webhook.ping')).length, 1);
    // No other webhook got it: a ping is for one webhook only.
    const others = await ctx.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('webhook_id', '!=', hook.id)
      .execute();
    assert.equal(others.length, 0);
  });

  it("shows a failed delivery's response code and the start of the receiver's answer; resends it", async () => {
    receiver.respond = () => 500;
    await record(ctx.db, ctx.account.accountId, 'task:deleted', { id: 77 });
    await waitFor('two attempts', () => receiver.on('/hook').length === 2);
    await waitFor('recorded', async () => (await deliveries())[1]?.response_status === 500);
    const failed = (await deliveries())[1]!;
    let page = await admin.get(`/console/webhooks/${hook.id}`);
    assert.match(page.body, /receiver answered 500: ok/);
    assert.match(page.body, /task:deleted/);

    receiver.respond = () => 200;
    const res = await admin.post(`/console/webhooks/${hook.id}/deliveries/${failed.id}/resend`);
    assert.equal(res.status, 303);
    await waitFor('resent', () => receiver.on('/hook').length === 3);
    const again = receiver.on('/hook');
    assert.equal(again[2]!.headers['webhook-id'], again[1]!.headers['webhook-id'], 'same message id');
    await waitFor('delivered', async () => (await deliveries())[1]?.status === 'delivered');
    page = await admin.get(`/console/webhooks/${hook.id}`);
    assert.equal((await audits('webhook.resend')).length, 1);
  });

  it('disables (nothing more is queued, ping refused 409) and enables again', async () => {
    await admin.get(`/console/webhooks/${hook.id}`);
    let res = await admin.post(`/console/webhooks/${hook.id}/active`, { active: '0' });
    assert.equal(res.status, 303);
    const api1 = await api.get(`/webhooks/${hook.id}`);
    assert.equal(api1.body.data.status, 'disabled');
    assert.equal(api1.body.data.disabled_reason, 'Disabled by an administrator');
    const before = (await deliveries()).length;
    await record(ctx.db, ctx.account.accountId, 'task:deleted', { id: 78 });
    assert.equal((await deliveries()).length, before, 'not queued while disabled');
    await admin.get(`/console/webhooks/${hook.id}`);
    res = await admin.post(`/console/webhooks/${hook.id}/ping`);
    assert.equal(res.status, 409);
    assert.match(pageError(res) ?? '', /enable it first/);
    await admin.get(`/console/webhooks/${hook.id}`);
    res = await admin.post(`/console/webhooks/${hook.id}/active`, { active: '1' });
    assert.equal(res.status, 303);
    assert.equal((await api.get(`/webhooks/${hook.id}`)).body.data.status, 'active');
    assert.equal((await audits('webhook.disable')).length, 1);
    assert.equal((await audits('webhook.enable')).length, 1);
  });

  it('rotates the secret: the new one is shown once and signs the next delivery beside the old one', async () => {
    await admin.get(`/console/webhooks/${hook.id}`);
    const res = await admin.post(`/console/webhooks/${hook.id}/rotate-secret`);
    assert.equal(res.status, 200);
    const secret = /id="new-secret" type="text" readonly value="([^"]+)"/.exec(res.body)?.[1] ?? '';
    assert.ok(secret.startsWith('whsec_'));
    assert.equal(res.headers['referrer-policy'], 'no-referrer');
    // A plain substring test: a secret is base64 and may hold `+` or `/`.
    assert.ok(
      !(await admin.get(`/console/webhooks/${hook.id}`)).body.includes(secret.slice(6, 30)),
      'the new secret is shown once',
    );
    const n = receiver.on('/hook').length;
    await record(ctx.db, ctx.account.accountId, 'task:deleted', { id: 79 });
    await waitFor('delivery', () => receiver.on('/hook').length === n + 1);
    const got = receiver.on('/hook')[n]!;
    new Webhook(secret).verify(got.body, got.headers);
    new Webhook(hook.signature_secret_key).verify(got.body, got.headers);
    const [entry] = await audits('webhook.rotate_secret');
    assert.doesNotMatch(entry!.detail ?? '', /whsec_/);
  });

  it('a member is refused (403); a POST without CSRF token or from elsewhere is refused (403)', async () => {
    const member = new Browser(ctx.app);
    await member.signIn(await emailOf(ctx.account.users.member), PASSWORD);
    assert.equal((await member.get('/console/webhooks')).status, 403);
    assert.equal((await member.get(`/console/webhooks/${hook.id}`)).status, 403);
    await member.get('/console/password');
    assert.equal((await member.post(`/console/webhooks/${hook.id}/active`, { active: '0' })).status, 403);
    await admin.get(`/console/webhooks/${hook.id}`);
    assert.equal(
      (await admin.post(`/console/webhooks/${hook.id}/active`, { _csrf: '', active: '0' })).status,
      403,
    );
    assert.equal(
      (await admin.post(`/console/webhooks/${hook.id}/rotate-secret`, {}, { origin: 'https://evil.example' }))
        .status,
      403,
    );
    assert.equal((await api.get(`/webhooks/${hook.id}`)).body.data.status, 'active');
    assert.equal((await audits('webhook.rotate_secret')).length, 1);
  });
});

it("a receiver's answer is kept as one line without control characters (NUL would break PostgreSQL)", () => {
  assert.equal(excerptOf(Buffer.from('{"error":\n\t"nope\u0000"}\r\n')), '{"error": "nope "}');
  // A multi-byte character cut at the excerpt's end is dropped, not shown as U+FFFD.
  assert.equal(excerptOf(Buffer.from('Grüße').subarray(0, 5)), 'Grü');
});
