import assert from 'node:assert/strict';
import { after, afterEach, before, it } from 'node:test';
import { buildApp } from '../src/app.js';
import type { MailConfig } from '../src/config.js';
import { MailWorker, type MailWorkerOptions } from '../src/modules/mail/mail.public.js';
import { ABANDONED_ERROR } from '../src/modules/mail/mail.repository.js';
import { type Api, connectAgain, countRows, describeEachDb, expectProblem, testConfig } from './helpers.js';
import { bookNow, line, makeClient, makeInvoice } from './invoicing.fixtures.js';
import { freePort, Relay } from './mail.support.js';
import { sleep, waitFor } from './webhooks.support.js';

const FROM = 'invoices@mailer.example';
/** The app's relay: never dialled (the tests' workers are given the test relay's address). */
const APP_MAIL: MailConfig = { smtpUrl: 'smtp://127.0.0.1:9', from: FROM, dkim: null };
const SCOPES = [
  'outgoing-invoice:read',
  'outgoing-invoice:write',
  'outgoing-invoice:book',
  'outgoing-invoice:send',
];

describeEachDb(
  'mail: sending invoices',
  (ctx) => {
    let api: Api;
    let relay: Relay;
    let port: number;
    let workers: MailWorker[] = [];

    const worker = (opts: Partial<MailWorkerOptions> = {}, db = ctx.db) => {
      const w = new MailWorker(db, ctx.kind, {
        mail: { smtpUrl: `smtp://127.0.0.1:${port}`, from: FROM, dkim: null },
        pollIntervalMs: 10,
        retryDelaysMs: [50, 50, 50],
        ...opts,
      });
      workers.push(w);
      return w;
    };

    /** A booked invoice of a new client; returns its id. */
    const bookedInvoice = async (client: Record<string, unknown> = {}, as = api) => {
      const clientId = await makeClient(as, { email: 'office@client.example', ...client });
      const inv = await makeInvoice(as, { client_id: clientId, line_items: [line(100)] });
      await bookNow(as, inv.id);
      return inv.id as number;
    };
    const bytes = async (path: string) => {
      const res = await ctx.app.inject({
        url: `/api/v1${path}`,
        headers: { authorization: `Bearer ${api.token}` },
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.rawPayload;
    };
    const messages = async (id: number) => {
      const res = await api.get(`/outgoing-invoices/${id}/messages`);
      assert.equal(res.status, 200, res.text);
      return res.body.data as any[];
    };

    /** The events recorded for a message: [kind, status in its payload]. */
    const events = async (messageId: number) =>
      (
        await ctx.db
          .selectFrom('events')
          .select(['kind', 'payload'])
          .where('resource_type', '=', 'mail_message')
          .where('resource_id', '=', messageId)
          .orderBy('id')
          .execute()
      ).map((e) => [e.kind, JSON.parse(e.payload).status]);

    before(async () => {
      api = await ctx.as([...SCOPES, 'client:write']);
      relay = new Relay();
      port = await relay.start();
    });
    afterEach(async () => {
      await Promise.all(workers.map((w) => w.stop()));
      workers = [];
      relay.answer = () => null;
      // Each test sees only its own messages queued.
      await ctx.db.deleteFrom('mail_jobs').execute();
    });
    after(async () => {
      await relay.stop();
    });

    it('sends a booked invoice with its PDF, byte for byte, and records the relay’s answer', async () => {
      const id = await bookedInvoice({ invoice_email: 'ap@client.example', language: 'de' });
      const res = await api.post(`/outgoing-invoices/${id}/send`, { cc: ['boss@client.example'] });
      assert.equal(res.status, 202, res.text);
      const queued = res.body.data;
      assert.equal(queued.status, 'queued');
      assert.deepEqual(queued.to, ['ap@client.example']);
      assert.deepEqual(queued.cc, ['boss@client.example']);
      assert.equal(queued.language, 'de');
      assert.match(queued.subject, /^Rechnung RE-\d{4}-\d+ von Test account \d+$/);
      assert.equal(queued.attachments.length, 1);

      const before = relay.accepted.length;
      assert.equal(await worker().runOnce(), 1);
      assert.equal(relay.accepted.length, before + 1);
      const got = relay.accepted.at(-1)!;
      assert.equal(got.from, FROM);
      assert.deepEqual(got.to.sort(), ['ap@client.example', 'boss@client.example']);
      assert.equal(got.mail.subject, queued.subject);
      assert.equal(got.mail.messageId, queued.message_id);
      assert.equal(got.mail.replyTo?.value[0]?.address, 'billing@seller.example');
      assert.match(got.mail.text ?? '', /anbei erhalten Sie unsere Rechnung RE-/);
      assert.match(got.mail.text ?? '', /119,00\s€/);
      assert.match(String(got.mail.html), /<p>Guten Tag,<\/p>/);
      const pdf = await bytes(`/outgoing-invoices/${id}/pdf`);
      assert.equal(got.mail.attachments.length, 1);
      const [att] = got.mail.attachments;
      assert.equal(att!.contentType, 'application/pdf');
      assert.ok(att!.content.equals(pdf), 'the attachment is the PDF download, byte for byte');
      assert.equal(queued.attachments[0].size, pdf.length);

      const [m] = await messages(id);
      assert.equal(m.status, 'sent');
      assert.equal(m.attempts, 1);
      assert.deepEqual(await events(m.id), [['invoice:sent', 'sent']]);
      assert.equal(m.smtp_code, 250);
      assert.match(m.smtp_response, /^250 /);
      assert.ok(m.sent_at);
      // The change feed announces the message (created, then updated when sent).
      const reader = await ctx.as(['outgoing-invoice:read']);
      let entries: any[] = [];
      // On PostgreSQL the feed holds back rows while older transactions of the server (any
      // database, other test processes too) still run.
      await waitFor(
        'the feed',
        async () => {
          const feed = await reader.get('/changes?limit=1000');
          entries = feed.body.data.filter((c: any) => c.resource === 'mail_message' && c.id === m.id);
          return entries.length === 2;
        },
        30_000,
      );
      assert.deepEqual(
        entries.map((c: any) => c.action),
        ['created', 'updated'],
      );
      assert.equal(entries[1].data.status, 'sent');
    });

    it('attaches PDF and UBL for pdf_and_xrechnung, the CII alone for xrechnung_cii', async () => {
      const both = await bookedInvoice({
        einvoice_format: 'pdf_and_xrechnung',
        buyer_reference: '991-12345-67',
      });
      assert.equal((await api.post(`/outgoing-invoices/${both}/send`)).status, 202);
      const cii = await bookedInvoice({ einvoice_format: 'xrechnung_cii', buyer_reference: '991-12345-67' });
      assert.equal((await api.post(`/outgoing-invoices/${cii}/send`, { language: 'en' })).status, 202);
      const before = relay.accepted.length;
      await worker().runOnce();
      const got = relay.accepted.slice(before);
      assert.equal(got.length, 2);
      const first = got.find((g) => g.mail.attachments.length === 2)!;
      assert.ok(first.mail.attachments[0]!.content.equals(await bytes(`/outgoing-invoices/${both}/pdf`)));
      assert.ok(
        first.mail.attachments[1]!.content.equals(await bytes(`/outgoing-invoices/${both}/xml?syntax=ubl`)),
      );
      assert.equal(first.mail.attachments[1]!.contentType, 'application/xml');
      const second = got.find((g) => g.mail.attachments.length === 1)!;
      assert.match(second.mail.subject ?? '', /^Invoice /);
      assert.ok(
        second.mail.attachments[0]!.content.equals(await bytes(`/outgoing-invoices/${cii}/xml?syntax=cii`)),
      );
      assert.match(second.mail.attachments[0]!.content.toString('utf8'), /991-12345-67/);
    });

    it('books and sends in one step with book: true; a refusal leaves the draft unbooked', async () => {
      const draft = async (client: Record<string, unknown> = {}) => {
        const clientId = await makeClient(api, { email: 'office@client.example', ...client });
        return (await makeInvoice(api, { client_id: clientId, line_items: [line(10)] })).id as number;
      };
      const id = await draft();
      const res = await api.post(`/outgoing-invoices/${id}/send`, { book: true });
      assert.equal(res.status, 202, res.text);
      const inv = (await api.get(`/outgoing-invoices/${id}`)).body.data;
      assert.equal(inv.status, 'booked');
      assert.equal(res.body.data.attachments[0].name, `${inv.invoice_number}.pdf`);

      const noBook = await ctx.as(SCOPES.filter((s) => s !== 'outgoing-invoice:book'));
      const other = await draft();
      const p = expectProblem(await noBook.post(`/outgoing-invoices/${other}/send`, { book: true }), 403);
      assert.deepEqual(p.required_scopes, ['outgoing-invoice:send', 'outgoing-invoice:book']);
      const xr = await draft({ einvoice_format: 'xrechnung_ubl' });
      const count = await countRows(ctx.db, 'mail_messages');
      expectProblem(await api.post(`/outgoing-invoices/${xr}/send`, { book: true }), 422, 'einvoice_invalid');
      assert.equal(await countRows(ctx.db, 'mail_messages'), count);
      for (const d of [other, xr]) {
        const left = (await api.get(`/outgoing-invoices/${d}`)).body.data;
        assert.equal(left.status, 'open');
        assert.equal(left.invoice_number, null);
      }
      // Already booked: book: true just sends.
      assert.equal((await api.post(`/outgoing-invoices/${id}/send`, { book: true })).status, 202);
    });

    it('refuses an XRechnung without buyer reference (BR-DE-15): 422 einvoice_invalid, nothing queued', async () => {
      const id = await bookedInvoice({ einvoice_format: 'xrechnung_ubl' });
      const count = await countRows(ctx.db, 'mail_messages');
      const p = expectProblem(await api.post(`/outgoing-invoices/${id}/send`), 422, 'einvoice_invalid');
      assert.deepEqual(
        p.errors!.map((e) => [e.field, e.message.split(':')[0]]),
        [['buyer_reference', 'BR-DE-15']],
      );
      assert.equal(await countRows(ctx.db, 'mail_messages'), count);
    });

    it('answers 401, 403 per missing scope, 404 (also another tenant’s id), 409 not_booked and 422', async () => {
      const id = await bookedInvoice();
      expectProblem(await ctx.anon.post(`/outgoing-invoices/${id}/send`), 401);
      expectProblem(await ctx.anon.get(`/outgoing-invoices/${id}/messages`), 401);
      const noSend = await ctx.as(SCOPES.filter((s) => s !== 'outgoing-invoice:send'));
      const p = expectProblem(await noSend.post(`/outgoing-invoices/${id}/send`), 403, 'insufficient_scope');
      assert.deepEqual(p.required_scopes, ['outgoing-invoice:send']);
      const noRead = await ctx.as(SCOPES.filter((s) => s !== 'outgoing-invoice:read'));
      expectProblem(await noRead.get(`/outgoing-invoices/${id}/messages`), 403, 'insufficient_scope');

      const count = await countRows(ctx.db, 'mail_messages');
      expectProblem(await api.post('/outgoing-invoices/999999/send'), 404, 'not_found');
      expectProblem(await api.get('/outgoing-invoices/999999/messages'), 404, 'not_found');
      const stranger = await ctx.as([...SCOPES, 'client:write'], { accountId: ctx.other.accountId });
      const theirs = await bookedInvoice({}, stranger);
      expectProblem(await api.post(`/outgoing-invoices/${theirs}/send`), 404, 'not_found');
      expectProblem(await api.get(`/outgoing-invoices/${theirs}/messages`), 404, 'not_found');

      const draft = await makeInvoice(api, { client_id: await makeClient(api), line_items: [line(5)] });
      expectProblem(await api.post(`/outgoing-invoices/${draft.id}/send`), 409, 'not_booked');

      const bad = async (body: unknown, field: string, target = id) => {
        const res = expectProblem(
          await api.post(`/outgoing-invoices/${target}/send`, body),
          422,
          'validation_failed',
        );
        assert.ok(
          res.errors!.some((e) => e.field === field),
          `${JSON.stringify(body)}: ${JSON.stringify(res.errors)}`,
        );
      };
      await bad({ too: ['a@b.example'] }, 'too');
      await bad({ to: ['not an address'] }, 'to.0');
      await bad({ to: [] }, 'to');
      await bad({ subject: 'two\r\nBcc: x@evil.example' }, 'subject');
      await bad({ message: 'x'.repeat(20001) }, 'message');
      await bad({ language: 'fr' }, 'language');
      // No address anywhere: the client has none, the body gives none.
      const nobody = await makeClient(api);
      const silent = await makeInvoice(api, { client_id: nobody, line_items: [line(5)] });
      await bookNow(api, silent.id);
      await bad({}, 'to', silent.id);
      assert.equal(await countRows(ctx.db, 'mail_messages'), count);
      // A bad address gets no further than validation in the client either.
      const c = await api.post('/clients', { name: 'X', invoice_email: 'nope', einvoice_format: 'pdf' });
      assert.deepEqual(
        expectProblem(c, 422)
          .errors!.map((e) => e.field)
          .sort(),
        ['einvoice_format', 'invoice_email'],
      );
    });

    it('a relay answering 451 then 250: sent once, after a retry', async () => {
      const id = await bookedInvoice();
      assert.equal((await api.post(`/outgoing-invoices/${id}/send`)).status, 202);
      const before = relay.accepted.length;
      const start = relay.attempts;
      relay.answer = (n) => (n === start + 1 ? { code: 451, message: 'Greylisted, try again later' } : null);
      // A back-off long enough that the check below runs well within it, even on a busy machine.
      const w = worker({ retryDelaysMs: [600] });
      await w.runOnce();
      let [m] = await messages(id);
      assert.equal(m.status, 'queued');
      assert.equal(m.attempts, 1);
      assert.equal(m.smtp_code, 451);
      assert.match(m.smtp_response, /451.*Greylisted/);
      assert.ok(m.next_attempt_at);
      assert.deepEqual(await events(m.id), [], 'a retry is no event');
      assert.equal(await w.runOnce(), 0, 'not due before its back-off');
      await sleep(650);
      assert.equal(await w.runOnce(), 1);
      [m] = await messages(id);
      assert.equal(m.status, 'sent');
      assert.equal(m.attempts, 2);
      assert.equal(relay.attempts, start + 2);
      assert.equal(relay.accepted.length, before + 1);
      assert.equal(relay.accepted.at(-1)!.mail.messageId, m.message_id);
    });

    it('a relay answering 550: failed for good, with its answer', async () => {
      const id = await bookedInvoice();
      assert.equal((await api.post(`/outgoing-invoices/${id}/send`)).status, 202);
      relay.answer = () => ({ code: 550, message: 'Mailbox unavailable' });
      const w = worker();
      await w.runOnce();
      const [m] = await messages(id);
      assert.equal(m.status, 'failed');
      assert.equal(m.smtp_code, 550);
      assert.match(m.smtp_response, /550.*Mailbox unavailable/);
      assert.ok(m.failed_at);
      assert.equal(m.next_attempt_at, null);
      assert.deepEqual(await events(m.id), [['invoice:send_failed', 'failed']]);
      await sleep(80);
      assert.equal(await w.runOnce(), 0, 'never tried again');
    });

    it('a relay that is down: queued, then sent when it is back', async () => {
      const id = await bookedInvoice();
      assert.equal((await api.post(`/outgoing-invoices/${id}/send`)).status, 202);
      const downPort = await freePort();
      const later = new Relay();
      const w = worker({ mail: { smtpUrl: `smtp://127.0.0.1:${downPort}`, from: FROM, dkim: null } });
      await w.runOnce();
      let [m] = await messages(id);
      assert.equal(m.status, 'queued');
      assert.equal(m.smtp_code, null);
      assert.match(m.error, /ECONNREFUSED|connect/i);
      await later.start(downPort);
      try {
        w.start();
        await waitFor('sent', async () => (await messages(id))[0].status === 'sent');
        [m] = await messages(id);
        assert.equal(m.attempts, 2);
        assert.equal(later.accepted.length, 1);
      } finally {
        await w.stop();
        await later.stop();
      }
    });

    it('goes through STARTTLS with authentication (smtp:// with credentials)', async () => {
      const secure = new Relay({ auth: { user: 'mailer', pass: 's3cret' } });
      const securePort = await secure.start();
      try {
        const id = await bookedInvoice();
        assert.equal((await api.post(`/outgoing-invoices/${id}/send`)).status, 202);
        const url = `smtp://mailer:s3cret@127.0.0.1:${securePort}?requireTLS=true&tls.rejectUnauthorized=false`;
        await worker({ mail: { smtpUrl: url, from: FROM, dkim: null } }).runOnce();
        assert.equal((await messages(id))[0].status, 'sent');
        assert.equal(secure.accepted.length, 1);
      } finally {
        await secure.stop();
      }
    });

    it('two workers (two processes on one database) send each message once', async () => {
      const ids: number[] = [];
      for (let i = 0; i < 6; i++) {
        const id = await bookedInvoice();
        assert.equal((await api.post(`/outgoing-invoices/${id}/send`)).status, 202);
        ids.push(id);
      }
      const before = relay.accepted.length;
      // PostgreSQL: a second pool, as another process has; SQLite in memory: the one connection.
      const other = ctx.kind === 'postgres' ? connectAgain(ctx.handle) : undefined;
      try {
        const a = worker({ concurrency: 2 });
        const b = worker({ concurrency: 2 }, other?.db ?? ctx.db);
        a.start();
        b.start();
        await waitFor('all sent', async () => {
          for (const id of ids) if ((await messages(id))[0].status !== 'sent') return false;
          return true;
        });
        await Promise.all([a.stop(), b.stop()]);
      } finally {
        await other?.destroy();
      }
      const got = relay.accepted.slice(before).map((r) => r.mail.messageId);
      assert.equal(got.length, 6);
      assert.equal(new Set(got).size, 6);
    });

    it('a worker that died holding a message: failed as unknown, never sent twice', async () => {
      const id = await bookedInvoice();
      assert.equal((await api.post(`/outgoing-invoices/${id}/send`)).status, 202);
      const dead = worker({ leaseMs: 30 });
      const { claimed } = await dead.claim(10);
      assert.deepEqual(claimed, [(await messages(id))[0].id]);
      const before = relay.accepted.length;
      const live = worker();
      assert.equal(await live.runOnce(), 0, 'the lease still holds');
      await sleep(60);
      assert.equal(await live.runOnce(), 0);
      const [m] = await messages(id);
      assert.equal(m.status, 'failed');
      assert.equal(m.error, ABANDONED_ERROR);
      assert.deepEqual(await events(m.id), [['invoice:send_failed', 'failed']]);
      assert.equal(relay.accepted.length, before);
    });

    it('keeps the account’s own texts per language and kind, used by the next message', async () => {
      const admin = await ctx.as([...SCOPES, 'client:write', 'account:read', 'account:write']);
      const path = '/account/profile/mail-templates';
      const list = await admin.get(path);
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(
        list.body.data.map((t: any) => `${t.language}/${t.kind}/${t.built_in}`),
        [
          'de/invoice/true',
          'de/credit/true',
          'de/offer/true',
          'en/invoice/true',
          'en/credit/true',
          'en/offer/true',
        ],
      );
      const own = {
        language: 'en',
        kind: 'invoice',
        subject: 'Bill {invoice_number}',
        body: 'Dear {client_name},\n\nplease pay {amount_due}.',
      };
      const put = await admin.put(path, { templates: [own] });
      assert.equal(put.status, 200, put.text);
      assert.deepEqual(
        put.body.data.find((t: any) => t.language === 'en' && t.kind === 'invoice'),
        { ...own, built_in: false },
      );
      assert.equal(put.body.data.filter((t: any) => t.built_in).length, 5);

      const id = await bookedInvoice({ name: 'Buyer AG' });
      const sent = await admin.post(`/outgoing-invoices/${id}/send`, { language: 'en' });
      assert.equal(sent.status, 202, sent.text);
      assert.match(sent.body.data.subject, /^Bill RE-\d{4}-\d+$/);
      assert.equal(sent.body.data.text, 'Dear Buyer AG,\n\nplease pay €119.00.');

      const bad = {
        language: 'de',
        kind: 'credit',
        subject: 'Gutschrift {nummer}',
        body: '{invoice_number} {x}',
      };
      const p = expectProblem(
        await admin.put(path, { templates: [own, bad, own] }),
        422,
        'validation_failed',
      );
      assert.deepEqual(
        p.errors!.map((e) => `${e.field}: ${e.message}`),
        [
          'templates.1.subject: unknown placeholder {nummer}',
          'templates.1.body: unknown placeholder {x}',
          'templates.2: en/invoice is given twice',
        ],
      );
      for (const wrong of [
        { ...own, language: 'fr' },
        { ...own, kind: 'reminder' },
        // An offer's text has no invoice number.
        { ...own, kind: 'offer' },
        { ...own, extra: 1 },
      ])
        expectProblem(await admin.put(path, { templates: [wrong] }), 422, 'validation_failed');
      expectProblem(await admin.put(path, {}), 422, 'validation_failed');
      expectProblem(await ctx.anon.get(path), 401);
      expectProblem(await api.get(path), 403, 'insufficient_scope');
      expectProblem(await api.put(path, { templates: [] }), 403, 'insufficient_scope');
      const member = await ctx.as(['account:read', 'account:write'], { userId: ctx.account.users.member });
      expectProblem(await member.get(path), 403, 'forbidden');
      expectProblem(await member.put(path, { templates: [] }), 403, 'forbidden');
      // The refused requests changed nothing.
      assert.equal((await admin.get(path)).body.data.filter((t: any) => !t.built_in).length, 1);

      const reset = await admin.put(path, { templates: [] });
      assert.ok(reset.body.data.every((t: any) => t.built_in));
      // Another account's texts are its own.
      const stranger = await ctx.as(['account:read'], { accountId: ctx.other.accountId });
      assert.ok((await stranger.get(path)).body.data.every((t: any) => t.built_in));
    });

    it('webhooks subscribe to invoice:send and invoice:send-failed with outgoing-invoice:read', async () => {
      const body = { url: 'http://127.0.0.1:9/hook', scopes: ['invoice:send', 'invoice:send-failed'] };
      const p = expectProblem(
        await (await ctx.as('integration')).post('/webhooks', body),
        403,
        'insufficient_scope',
      );
      assert.deepEqual(p.required_scopes, ['integration', 'outgoing-invoice:read']);
      const res = await (await ctx.as('integration outgoing-invoice:read')).post('/webhooks', body);
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(res.body.data.scopes, ['invoice:send', 'invoice:send-failed']);
      await ctx.db.deleteFrom('webhooks').execute();
    });

    it('answers 503 mail_not_configured without SMTP_URL and queues nothing', async () => {
      const id = await bookedInvoice();
      const app = await buildApp(testConfig({ mail: null }), { db: ctx.handle, logger: false });
      try {
        await app.ready();
        const res = await app.inject({
          method: 'POST',
          url: `/api/v1/outgoing-invoices/${id}/send`,
          headers: { authorization: `Bearer ${api.token}` },
          payload: {},
        });
        assert.equal(res.statusCode, 503, res.body);
        assert.equal(res.json().code, 'mail_not_configured');
      } finally {
        await app.close();
      }
      assert.deepEqual(await messages(id), []);
    });
  },
  { config: { mail: APP_MAIL } },
);
