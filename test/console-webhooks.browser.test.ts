import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { WebhookWorker } from '../src/modules/webhooks/webhooks.worker.js';
import { launchBrowser, listen, screenshots, signIn, withPassword } from './browser.js';
import { describeEachDb } from './helpers.js';
import { Receiver, record, waitFor as waitForBriefly } from './webhooks.support.js';

/** Longer than the default: the worker shares the machine with the browser (and other tests). */
const waitFor = (what: string, cond: () => boolean | Promise<boolean>) => waitForBriefly(what, cond, 30_000);

describeEachDb('console webhooks page in a real browser', (ctx) => {
  let base: string;
  let adminEmail: string;
  let memberEmail: string;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let receiver: Receiver;
  let worker: WebhookWorker;
  let hookId: number;
  let secret: string;
  const shot = screenshots(ctx.kind);

  before(async () => {
    base = await listen(ctx.app);
    adminEmail = await withPassword(ctx.db, ctx.account.users.admin);
    memberEmail = await withPassword(ctx.db, ctx.account.users.member);
    receiver = await new Receiver().start();
    // The receiver refuses the first message, then takes everything.
    receiver.respond = (_req, n) => (n === 1 ? 503 : 200);
    const api = await ctx.as('integration');
    const res = await api.post('/webhooks', {
      url: `${receiver.url}/hooks/invoicing`,
      scopes: ['task:create', 'task:delete', 'contact:update'],
    });
    hookId = res.body.data.id;
    secret = res.body.data.signature_secret_key;
    worker = new WebhookWorker(ctx.db, ctx.kind, {
      secretKey: ctx.app.config.secretKey,
      allowPrivate: true,
      pollIntervalMs: 10,
      retryDelaysMs: [0, 3_600_000],
    });
    worker.start();
    await record(ctx.db, ctx.account.accountId, 'task:created', { id: 41, name: 'Write the offer' });
    await waitFor('the refused delivery', () => receiver.requests.length === 1);
    await record(ctx.db, ctx.account.accountId, 'contact:update', { id: 7, last_name: 'Müller' });
    await waitFor('the second delivery', () => receiver.requests.length === 2);
    browser = await launchBrowser({ viewport: { width: 1100, height: 700 } });
  });
  after(async () => {
    await browser?.close();
    await worker?.stop();
    await receiver?.stop();
  });

  it('shows deliveries, sends a test ping, resends a failed delivery, rotates the secret', async () => {
    const page = await browser.context.newPage();
    await signIn(page, base, adminEmail, '/console/webhooks');
    assert.equal(await page.title(), 'Webhooks · Project and Invoicing');
    await page.getByRole('link', { name: `${receiver.url}/hooks/invoicing` }).click();
    await page.waitForURL(`${base}/console/webhooks/${hookId}`);
    assert.ok(await page.getByText('receiver answered 503: ok').isVisible());

    await page.getByRole('button', { name: 'Send a test ping' }).click();
    await page.waitForURL(`${base}/console/webhooks/${hookId}?done=pinged`);
    await waitFor('the ping', () => receiver.requests.length === 3);
    const ping = receiver.requests[2]!;
    assert.equal((new Webhook(secret).verify(ping.body, ping.headers) as { event: string }).event, 'ping');

    // The refused message waits for its retry, with the receiver's answer; the ping went through.
    await waitFor(
      'the ping recorded',
      async () =>
        (
          await ctx.db
            .selectFrom('webhook_deliveries')
            .select('status')
            .where('webhook_id', '=', hookId)
            .orderBy('id')
            .execute()
        )[2]?.status === 'delivered',
    );
    await page.reload();
    assert.ok(await page.getByRole('cell', { name: 'ping' }).first().isVisible());
    await shot(page, 'console-webhooks.png');

    const failed = await ctx.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('webhook_id', '=', hookId)
      .where('response_status', '=', 503)
      .executeTakeFirstOrThrow();
    await page.getByRole('button', { name: `Resend: #${failed.id}` }).click();
    await page.waitForURL(`${base}/console/webhooks/${hookId}?done=resent`);
    await waitFor('the resent delivery', () => receiver.requests.length === 4);
    assert.equal(receiver.requests[3]!.headers['webhook-id'], receiver.requests[0]!.headers['webhook-id']);
    await waitFor(
      'all delivered',
      async () =>
        (
          await ctx.db
            .selectFrom('webhook_deliveries')
            .select('status')
            .where('webhook_id', '=', hookId)
            .orderBy('id')
            .execute()
        )
          .map((d) => d.status)
          .join() === 'delivered,delivered,delivered',
    );
    await page.reload();
    assert.equal(await page.getByText('receiver answered 503: ok').count(), 0, 'the resend went through');

    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.waitForLoadState();
    const rotated = await page.getByLabel('Signing secret', { exact: true }).inputValue();
    assert.match(rotated, /^whsec_/);
    await record(ctx.db, ctx.account.accountId, 'task:deleted', { id: 41 });
    await waitFor('signed with the new secret', () => receiver.requests.length === 5);
    new Webhook(rotated).verify(receiver.requests[4]!.body, receiver.requests[4]!.headers);

    await page.getByRole('button', { name: 'Disable' }).click();
    await page.waitForURL(`${base}/console/webhooks/${hookId}?done=disabled`);
    await page.getByRole('button', { name: 'Send a test ping' }).click();
    await page.waitForLoadState();
    assert.equal(await page.getByRole('alert').textContent(), 'The webhook is disabled: enable it first.');
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.waitForURL(`${base}/console/webhooks/${hookId}?done=enabled`);
    await page.close();
  });

  it('a member is refused; a form with a forged token is refused', async () => {
    const member = await launchBrowser();
    try {
      const page = await member.context.newPage();
      await signIn(page, base, memberEmail, '/console/password');
      await page.goto(`${base}/console/webhooks/${hookId}`);
      assert.match((await page.getByRole('alert').textContent()) ?? '', /for administrators of the account/);
    } finally {
      await member.close();
    }
    const page = await browser.context.newPage();
    await page.goto(`${base}/console/webhooks/${hookId}`);
    await page.locator(`form[action$="/active"] input[name="_csrf"]`).evaluate((e) => {
      (e as unknown as { value: string }).value = 'forged';
    });
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.waitForLoadState();
    assert.match(
      (await page.getByRole('alert').textContent()) ?? '',
      /form has expired or was not sent from this site/,
    );
    const row = await ctx.db
      .selectFrom('webhooks')
      .select('active')
      .where('id', '=', hookId)
      .executeTakeFirstOrThrow();
    assert.equal(Number(row.active), 1);
    await page.close();
  });
});
