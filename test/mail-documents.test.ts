import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, afterEach, before, it } from 'node:test';
import { buildApp } from '../src/app.js';
import type { MailConfig } from '../src/config.js';
import { DunningScheduler } from '../src/modules/dunning/dunning.public.js';
import { MailWorker } from '../src/modules/mail/mail.public.js';
import {
  type Api,
  countRows,
  createAccount,
  describeEachDb,
  expectProblem,
  type TestContext,
  testConfig,
} from './helpers.js';
import { ALL_INVOICE_SCOPES, bookNow, line, makeClient, makeInvoice } from './invoicing.fixtures.js';
import { Relay } from './mail.support.js';
import { waitFor } from './webhooks.support.js';

const FROM = 'office@mailer.example';
/** The app's relay: never dialled (the tests' workers are given the test relay's address). */
const APP_MAIL: MailConfig = { smtpUrl: 'smtp://127.0.0.1:9', from: FROM, dkim: null };
const OFFER_SCOPES = ['offer:read', 'offer:write', 'offer:send', 'client:write'];
const DUNNING = ['dunning:read', 'dunning:write'];

describeEachDb(
  'mail: sending offers and dunning letters',
  (ctx: TestContext) => {
    let relay: Relay;
    let port: number;
    let workers: MailWorker[] = [];

    const send = async () => {
      const w = new MailWorker(ctx.db, ctx.kind, {
        mail: { smtpUrl: `smtp://127.0.0.1:${port}`, from: FROM, dkim: null },
        pollIntervalMs: 10,
      });
      workers.push(w);
      return w.runOnce();
    };
    const bytes = async (api: Api, path: string) => {
      const res = await ctx.app.inject({
        url: `/api/v1${path}`,
        headers: { authorization: `Bearer ${api.token}` },
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.rawPayload;
    };
    /** An account of its own (its own letter numbers), with a token for invoicing and dunning. */
    const dunningAccount = async () => {
      const acc = await createAccount(ctx.db, { payment_accounts: [{ name: 'Bank' }] });
      const api = await ctx.as([...ALL_INVOICE_SCOPES, ...DUNNING], { userId: acc.users.admin });
      return { acc, api };
    };
    /** A booked invoice of 1,190.00 due 16 March 2026 of a client with these fields. */
    const overdue = async (api: Api, client: Record<string, unknown>) => {
      const inv = await makeInvoice(api, {
        client_id: await makeClient(api, client),
        date: '2026-03-02',
        due_date: '2026-03-16',
        line_items: [line(1000)],
      });
      return bookNow(api, inv.id);
    };
    const run = async (api: Api, date: string) => {
      const res = await api.post('/dunning/run', { date });
      assert.equal(res.status, 200, res.text);
      return res.body.data.created as any[];
    };
    const offer = async (
      api: Api,
      client: Record<string, unknown> = {},
      extra: Record<string, unknown> = {},
    ) => {
      const res = await api.post('/offers', {
        client_id: await makeClient(api, { email: 'office@client.example', ...client }),
        offer_number: `AN-${Math.floor(Math.random() * 1e9)}`,
        date: '2026-11-02',
        valid_until: '2026-11-30',
        line_items: [line(100)],
        ...extra,
      });
      assert.equal(res.status, 201, res.text);
      return res.body.data as { id: number; offer_number: string; status: string };
    };

    before(async () => {
      relay = new Relay();
      port = await relay.start();
    });
    afterEach(async () => {
      await Promise.all(workers.map((w) => w.stop()));
      workers = [];
      relay.answer = () => null;
      await ctx.db.deleteFrom('mail_jobs').execute();
    });
    after(async () => {
      await relay.stop();
    });

    it('sends an offer with its PDF, byte for byte; a created offer becomes sent', async () => {
      const api = await ctx.as(OFFER_SCOPES);
      const o = await offer(api, { language: 'de', invoice_email: 'einkauf@client.example' });
      const res = await api.post(`/offers/${o.id}/send`, { bcc: ['archive@seller.example'] });
      assert.equal(res.status, 202, res.text);
      const queued = res.body.data;
      assert.deepEqual(
        [queued.document_type, queued.document_id, queued.status, queued.language],
        ['offer', o.id, 'queued', 'de'],
      );
      assert.deepEqual(queued.to, ['einkauf@client.example']);
      assert.match(queued.subject, new RegExp(`^Angebot ${o.offer_number} von Test account \\d+$`));
      assert.match(
        queued.text,
        /unser Angebot AN-\d+ vom 02\.11\.2026 über 119,00\s€, gültig bis 30\.11\.2026/,
      );
      assert.equal((await api.get(`/offers/${o.id}`)).body.data.status, 'sent');

      assert.equal(await send(), 1);
      const got = relay.accepted.at(-1)!;
      assert.equal(got.mail.subject, queued.subject);
      assert.deepEqual(got.to.sort(), ['archive@seller.example', 'einkauf@client.example']);
      const pdf = await bytes(api, `/offers/${o.id}/pdf`);
      assert.equal(got.mail.attachments.length, 1);
      assert.equal(got.mail.attachments[0]!.contentType, 'application/pdf');
      assert.ok(got.mail.attachments[0]!.content.equals(pdf), 'the attachment is the PDF download');
      assert.equal(queued.attachments[0].sha256, createHash('sha256').update(pdf).digest('hex'));

      const list = await api.get(`/offers/${o.id}/messages`);
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(
        list.body.data.map((m: any) => [m.id, m.status]),
        [[queued.id, 'sent']],
      );
      // The feed shows an offer's message to a reader of offers (and of invoices' messages) only.
      const feedOf = async (scopes: string[]) => {
        const feed = await (await ctx.as(scopes)).get('/changes?limit=1000');
        assert.equal(feed.status, 200, feed.text);
        return feed.body.data.filter((c: any) => c.resource === 'mail_message' && c.id === queued.id);
      };
      await waitFor(
        'the feed',
        async () => (await feedOf(['outgoing-invoice:read', 'offer:read'])).length === 2,
        30_000,
      );
      assert.deepEqual(await feedOf(['outgoing-invoice:read']), []);

      // A sent offer may go out again (another address); the English template on request.
      const again = await api.post(`/offers/${o.id}/send`, { to: ['ceo@client.example'], language: 'en' });
      assert.equal(again.status, 202, again.text);
      assert.match(again.body.data.subject, /^Offer AN-\d+ from /);
    });

    it('offers: the account’s own template; 401, 403, 404, 409 offer_not_open, 422 and 503', async () => {
      const admin = await ctx.as([...OFFER_SCOPES, 'account:read', 'account:write'], {
        userId: ctx.account.users.admin,
      });
      const put = await admin.put('/account/profile/mail-templates', {
        templates: [
          { language: 'en', kind: 'offer', subject: 'Quote {offer_number}', body: 'Hi {client_name}' },
        ],
      });
      assert.equal(put.status, 200, put.text);
      assert.deepEqual(
        put.body.data.filter((t: any) => t.kind === 'offer').map((t: any) => [t.language, t.built_in]),
        [
          ['de', true],
          ['en', false],
        ],
      );
      const wrong = await admin.put('/account/profile/mail-templates', {
        templates: [{ language: 'en', kind: 'offer', subject: 'Quote {invoice_number}', body: 'x' }],
      });
      assert.deepEqual(
        expectProblem(wrong, 422, 'validation_failed').errors!.map((e) => e.field),
        ['templates.0.subject'],
      );
      const api = await ctx.as(OFFER_SCOPES);
      const o = await offer(api, { name: 'Acme', language: 'en' });
      const sent = await api.post(`/offers/${o.id}/send`);
      assert.equal(sent.status, 202, sent.text);
      assert.deepEqual([sent.body.data.subject, sent.body.data.text], [`Quote ${o.offer_number}`, 'Hi Acme']);
      assert.equal((await admin.put('/account/profile/mail-templates', { templates: [] })).status, 200);

      expectProblem(await ctx.anon.post(`/offers/${o.id}/send`), 401);
      expectProblem(await ctx.anon.get(`/offers/${o.id}/messages`), 401);
      const noSend = await ctx.as(OFFER_SCOPES.filter((s) => s !== 'offer:send'));
      const p = expectProblem(await noSend.post(`/offers/${o.id}/send`, {}), 403, 'insufficient_scope');
      assert.deepEqual(p.required_scopes, ['offer:send']);
      const noRead = await ctx.as(OFFER_SCOPES.filter((s) => s !== 'offer:read'));
      expectProblem(await noRead.get(`/offers/${o.id}/messages`), 403, 'insufficient_scope');

      const count = await countRows(ctx.db, 'mail_messages');
      expectProblem(await api.post('/offers/999999/send', {}), 404, 'not_found');
      expectProblem(await api.get('/offers/999999/messages'), 404, 'not_found');
      const stranger = await ctx.as(OFFER_SCOPES, { accountId: ctx.other.accountId });
      const theirs = await offer(stranger);
      expectProblem(await api.post(`/offers/${theirs.id}/send`, {}), 404, 'not_found');
      expectProblem(await api.get(`/offers/${theirs.id}/messages`), 404, 'not_found');

      const declined = await offer(api);
      assert.equal((await api.post(`/offers/${declined.id}/decline`)).status, 200);
      expectProblem(await api.post(`/offers/${declined.id}/send`, {}), 409, 'offer_not_open');
      const accepted = await offer(api);
      assert.equal((await api.post(`/offers/${accepted.id}/accept`)).status, 200);
      expectProblem(await api.post(`/offers/${accepted.id}/send`, {}), 409, 'offer_not_open');

      const bad = async (body: unknown, field: string, target = o.id) => {
        const res = expectProblem(await api.post(`/offers/${target}/send`, body), 422, 'validation_failed');
        assert.ok(
          res.errors!.some((e) => e.field === field),
          JSON.stringify(res.errors),
        );
      };
      await bad({ book: true }, 'book');
      await bad({ to: ['not an address'] }, 'to.0');
      await bad({ language: 'fr' }, 'language');
      const nobody = await api.post('/offers', { client_id: await makeClient(api), line_items: [line(1)] });
      await bad({}, 'to', nobody.body.data.id);
      assert.equal(await countRows(ctx.db, 'mail_messages'), count, 'no refusal queued anything');

      const app = await buildApp(testConfig({ mail: null }), { db: ctx.handle, logger: false });
      try {
        await app.ready();
        const res = await app.inject({
          method: 'POST',
          url: `/api/v1/offers/${o.id}/send`,
          headers: { authorization: `Bearer ${api.token}` },
          payload: {},
        });
        assert.equal(res.statusCode, 503, res.body);
        assert.equal(res.json().code, 'mail_not_configured');
      } finally {
        await app.close();
      }
      assert.equal(await countRows(ctx.db, 'mail_messages'), count);
    });

    it('the run queues letters of e-mail levels; POST /dunnings/{id}/send sends one by hand', async () => {
      const { acc, api } = await dunningAccount();
      const mailed = await overdue(api, { language: 'de', invoice_email: 'buchhaltung@client.example' });
      const unreachable = await overdue(api, {});
      // Level 1 is delivered by e-mail: queued in the run for the client with an address.
      const created = await run(api, '2026-03-23');
      const byInvoice = new Map(created.map((l) => [l.invoice_id, l]));
      const letter = byInvoice.get(mailed.id)!;
      assert.equal(letter.status, 'sent');
      assert.ok(letter.sent_at);
      assert.equal(byInvoice.get(unreachable.id)!.status, 'open', 'nobody to send to: left open');
      const [message] = (await api.get(`/dunnings/${letter.id}/messages`)).body.data;
      assert.deepEqual(
        [message.document_type, message.document_id, message.to, message.status, message.subject],
        ['dunning', letter.id, ['buchhaltung@client.example'], 'queued', letter.subject],
      );
      assert.equal(message.text, letter.body);
      assert.equal(await send(), 1);
      const got = relay.accepted.at(-1)!;
      const pdf = await bytes(api, `/dunnings/${letter.id}/pdf`);
      assert.ok(got.mail.attachments[0]!.content.equals(pdf), 'the attachment is the letter PDF');
      assert.equal(got.mail.attachments[0]!.filename, `${letter.number}.pdf`);

      // By hand: the open letter, to a given address, in English (the level's English text).
      const other = byInvoice.get(unreachable.id)!;
      const res = await api.post(`/dunnings/${other.id}/send`, { to: ['ap@client.example'], language: 'en' });
      assert.equal(res.status, 202, res.text);
      assert.match(res.body.data.subject, /Payment reminder/i);
      assert.match(res.body.data.text, /our invoice RE-\d{4}-\d+ of 2 Mar 2026/);
      assert.equal((await api.get(`/dunnings/${other.id}`)).body.data.status, 'sent');
      // Sent again: a second message, but the letter was sent once.
      assert.equal((await api.post(`/dunnings/${other.id}/send`, { to: ['ap@client.example'] })).status, 202);
      const events = await ctx.db
        .selectFrom('events')
        .select(['kind', 'resource_id'])
        .where('account_id', '=', acc.accountId)
        .where('kind', '=', 'dunning:sent')
        .orderBy('id')
        .execute();
      assert.deepEqual(
        events.map((e) => Number(e.resource_id)),
        [letter.id, other.id],
        'dunning:sent once per letter',
      );
      assert.equal(await send(), 2);
      const list = await api.get(`/dunnings/${other.id}/messages`);
      assert.deepEqual(
        list.body.data.map((m: any) => m.status),
        ['sent', 'sent'],
      );
    });

    it('dunning send: 401, 403, 404, 409 for cancelled and settled letters, 422 and 503', async () => {
      const { api } = await dunningAccount();
      const inv = await overdue(api, {});
      const [letter] = await run(api, '2026-03-23');
      assert.equal(letter.status, 'open');
      expectProblem(await ctx.anon.post(`/dunnings/${letter.id}/send`), 401);
      expectProblem(await ctx.anon.get(`/dunnings/${letter.id}/messages`), 401);
      const reader = await ctx.as(['dunning:read']);
      expectProblem(await reader.post(`/dunnings/${letter.id}/send`, {}), 403, 'insufficient_scope');
      const writer = await ctx.as(['dunning:write']);
      expectProblem(await writer.get(`/dunnings/${letter.id}/messages`), 403, 'insufficient_scope');

      const count = await countRows(ctx.db, 'mail_messages');
      expectProblem(await api.post('/dunnings/999999/send', {}), 404, 'not_found');
      expectProblem(await api.get('/dunnings/999999/messages'), 404, 'not_found');
      const stranger = await ctx.as(DUNNING, { accountId: ctx.other.accountId });
      expectProblem(await stranger.post(`/dunnings/${letter.id}/send`, {}), 404, 'not_found');
      expectProblem(await stranger.get(`/dunnings/${letter.id}/messages`), 404, 'not_found');

      const bad = async (body: unknown, field: string) => {
        const res = expectProblem(
          await api.post(`/dunnings/${letter.id}/send`, body),
          422,
          'validation_failed',
        );
        assert.ok(
          res.errors!.some((e) => e.field === field),
          JSON.stringify(res.errors),
        );
      };
      await bad({}, 'to');
      await bad({ to: ['nope'] }, 'to.0');
      await bad({ cc: 'x@y.example' }, 'cc');
      await bad({ subject: 'a\nb' }, 'subject');
      assert.equal(await countRows(ctx.db, 'mail_messages'), count);

      const app = await buildApp(testConfig({ mail: null }), { db: ctx.handle, logger: false });
      try {
        await app.ready();
        const res = await app.inject({
          method: 'POST',
          url: `/api/v1/dunnings/${letter.id}/send`,
          headers: { authorization: `Bearer ${api.token}` },
          payload: { to: ['ap@client.example'] },
        });
        assert.equal(res.statusCode, 503, res.body);
        assert.equal(res.json().code, 'mail_not_configured');
      } finally {
        await app.close();
      }

      assert.equal((await api.post(`/dunnings/${letter.id}/cancel`)).status, 200);
      expectProblem(await api.post(`/dunnings/${letter.id}/send`, { to: ['a@b.example'] }), 409, 'conflict');
      // Settled: the invoice is paid, the next run settles its letters.
      const inv2 = await overdue(api, {});
      const [open] = (await run(api, '2026-03-24')).filter((l) => l.invoice_id === inv2.id);
      const payment_account_id = (await api.get('/payment-accounts')).body.data[0].id;
      const paid = await api.post('/payments/outgoing-invoice', {
        invoice_id: inv2.id,
        amount: 1190,
        date: '2026-03-25',
        payment_account_id,
      });
      assert.equal(paid.status, 201, paid.text);
      await run(api, '2026-03-26');
      assert.equal((await api.get(`/dunnings/${open.id}`)).body.data.status, 'settled');
      expectProblem(await api.post(`/dunnings/${open.id}/send`, { to: ['a@b.example'] }), 409, 'conflict');
      assert.equal(await countRows(ctx.db, 'mail_messages'), count);
      assert.equal(letter.invoice_id, inv.id);
    });

    it('the daily run (DUNNING_AUTO_RUN) queues letters of e-mail levels with the relay it is given', async () => {
      const { api } = await dunningAccount();
      const inv = await overdue(api, { invoice_email: 'ap@scheduled.example' });
      const day = Date.parse('2026-03-23T06:00:00Z');
      await new DunningScheduler(ctx.db, { clock: { now: () => day }, mail: APP_MAIL }).round();
      const [letter] = (await api.get(`/dunnings?invoice_id=${inv.id}`)).body.data;
      assert.deepEqual([letter.level, letter.status], [1, 'sent']);
      const [message] = (await api.get(`/dunnings/${letter.id}/messages`)).body.data;
      assert.deepEqual([message.to, message.status], [['ap@scheduled.example'], 'queued']);
      assert.equal(await send(), 1);
      assert.deepEqual(relay.accepted.at(-1)!.to, ['ap@scheduled.example']);
    });
  },
  { config: { mail: APP_MAIL } },
);
