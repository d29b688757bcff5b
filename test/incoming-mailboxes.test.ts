import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { ImapFlow } from 'imapflow';
import {
  createExtractor,
  type Extractor,
} from '../src/modules/incoming-invoices/incoming-invoices.public.js';
import { decryptPassword } from '../src/modules/incoming-mailboxes/incoming-mailboxes.crypto.js';
import { MailboxWorker } from '../src/modules/incoming-mailboxes/incoming-mailboxes.public.js';
import { Dovecot, hasDovecot, mimeMessage } from './dovecot.support.js';
import { type Api, describeEachDb, expectProblem } from './helpers.js';
import { cii, makePdf } from './incoming-einvoices.fixtures.js';

// A 1×1 PNG: taken for a scan (read by OCR in a job, not here).
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

/**
 * Mailbox intake (issue 42, item 3) against a real IMAP server (dovecot, started here) on both
 * databases: three messages (a ZUGFeRD PDF, an XRechnung XML, a scan) become three documents
 * with their source; polled again by a new worker (a restart) nothing more is taken, a file
 * already stored is logged as a duplicate of its document; a wrong password shows its error
 * and is retried later while the other mailbox is read.
 */
describeEachDb(
  'incoming mailboxes over IMAP',
  (ctx) => {
    let api: Api;
    let dovecot: Dovecot;
    let extractor: Extractor;
    let zugferd: Buffer;
    const workers: MailboxWorker[] = [];
    const worker = () => {
      const w = new MailboxWorker(ctx.db, ctx.kind, {
        secretKey: ctx.app.config.secretKey,
        extractor,
        retryBaseMs: 60_000,
        timeoutMs: 5000,
        // The test's dovecot listens on 127.0.0.1, which a deployment refuses.
        allowPrivate: true,
      });
      workers.push(w);
      return w;
    };
    const imap = async (user: string, pass: string, fn: (c: ImapFlow) => Promise<void>) => {
      const c = new ImapFlow({
        host: '127.0.0.1',
        port: dovecot.port,
        secure: false,
        auth: { user, pass },
        logger: false,
      });
      await c.connect();
      try {
        await fn(c);
      } finally {
        await c.logout();
      }
    };
    /** Makes every mailbox due now (the poll interval is a minute). */
    const due = () =>
      ctx.db
        .updateTable('incoming_mailboxes')
        .set({ next_poll_at: new Date(0).toISOString() })
        .execute();
    const documents = async () =>
      ((await api.get('/incoming-invoices?per_page=100')).body.data as Record<string, any>[]).filter(
        (d) => d.source.kind === 'mailbox',
      );

    before(async () => {
      assert.ok(hasDovecot(), 'dovecot-imapd is not installed (apt-get install -y dovecot-imapd)');
      dovecot = await new Dovecot({
        alice: 'alice-secret',
        bob: 'bob-secret',
        carol: 'carol-secret',
      }).start();
      extractor = createExtractor(ctx.app.config);
      api = await ctx.as('incoming-invoice:write incoming-invoice:read');
      zugferd = await makePdf(
        ['Rechnung ZF-1'],
        [
          {
            name: 'zugferd-invoice.xml',
            data: Buffer.from(cii({ number: 'ZF-1', net: '100.00', tax: '19.00', gross: '119.00' })),
          },
        ],
      );
    });
    after(async () => {
      await Promise.all(workers.map((w) => w.stop()));
      await extractor?.close();
      await dovecot?.stop();
    });

    it('validates, stores the password encrypted and never answers it', async () => {
      expectProblem(
        await api.post('/incoming-mailboxes', {
          host: '127.0.0.1',
          username: 'x',
          password: 'y',
          processed_action: 'move',
        }),
        422,
      );
      expectProblem(await (await ctx.as('incoming-invoice:read')).post('/incoming-mailboxes', {}), 403);
      const created = await api.post('/incoming-mailboxes', {
        host: 'imap.example.com',
        username: 'same',
        password: 'pw',
        active: false,
      });
      assert.equal(created.status, 201, created.text);
      const path = `/incoming-mailboxes/${created.body.data.id}`;
      const same = { name: created.body.data.name, password: 'pw', folder: 'INBOX', active: false };
      const first = await api.patch(path, same);
      assert.equal(first.status, 200, first.text);
      assert.equal(
        first.body.data.updated_at,
        created.body.data.updated_at,
        'nothing changed, updated_at kept',
      );
      const changed = await api.patch(path, { password: 'other' });
      assert.notEqual(changed.body.data.updated_at, created.body.data.updated_at);
      assert.equal((await api.delete(path)).status, 204);
      expectProblem(await api.get(path), 404);
    });

    it('three messages become three documents; a restart takes none again; a wrong password is shown and retried', async () => {
      await imap('alice', 'alice-secret', async (c) => {
        await c.append(
          'INBOX',
          mimeMessage({
            from: 'Billing <billing@supplier.example>',
            subject: 'Rechnung ZF-1',
            messageId: 'zf-1@supplier.example',
            attachments: [{ name: 'ZF-1.pdf', type: 'application/pdf', data: zugferd }],
          }),
        );
        await c.append(
          'INBOX',
          mimeMessage({
            from: 'erechnung@other.example',
            subject: 'XRechnung XR-2',
            messageId: 'xr-2@other.example',
            body: {
              type: 'application/xml',
              data: Buffer.from(cii({ number: 'XR-2', net: '10.00', tax: '1.90', gross: '11.90' })),
            },
          }),
        );
        await c.append(
          'INBOX',
          mimeMessage({
            from: 'scanner@office.example',
            subject: 'Scan',
            messageId: 'scan-3@office.example',
            attachments: [{ name: 'scan.png', type: 'image/png', data: PNG }],
          }),
        );
      });

      const good = await api.post('/incoming-mailboxes', {
        host: '127.0.0.1',
        port: dovecot.port,
        tls: false,
        username: 'alice',
        password: 'alice-secret',
      });
      assert.equal(good.status, 201, good.text);
      assert.equal(good.headers.location, `/api/v1/incoming-mailboxes/${good.body.data.id}`);
      assert.equal(good.body.data.password, undefined, 'never answered');
      assert.equal(good.body.data.status, 'new');
      const stored = await ctx.db
        .selectFrom('incoming_mailboxes')
        .select('password_enc')
        .where('id', '=', good.body.data.id)
        .executeTakeFirstOrThrow();
      assert.ok(!stored.password_enc.includes('alice-secret'));
      assert.equal(
        decryptPassword(ctx.app.config.secretKey, stored.password_enc, ctx.account.accountId),
        'alice-secret',
      );

      const broken = await api.post('/incoming-mailboxes', {
        name: 'Bob (wrong password)',
        host: '127.0.0.1',
        port: dovecot.port,
        tls: false,
        username: 'bob',
        password: 'not-bobs',
      });
      assert.equal(broken.status, 201, broken.text);

      assert.equal(await worker().runOnce(), 2, 'both mailboxes polled');
      const docs = await documents();
      assert.equal(
        docs.length,
        3,
        JSON.stringify((await api.get(`/incoming-mailboxes/${good.body.data.id}/log`)).body),
      );
      const byNumber = new Map(docs.map((d) => [d.invoice_number, d]));
      const zf = byNumber.get('ZF-1')!;
      assert.equal(zf.gross_total, 119);
      assert.equal(zf.extraction.status, 'done');
      assert.deepEqual(zf.source, {
        kind: 'mailbox',
        mailbox_id: good.body.data.id,
        message_id: 'zf-1@supplier.example',
        sender: 'billing@supplier.example',
        subject: 'Rechnung ZF-1',
      });
      assert.equal(byNumber.get('XR-2')?.gross_total, 11.9, 'the e-invoice sent as the body');
      const scan = docs.find((d) => d.source.message_id === 'scan-3@office.example')!;
      assert.equal(scan.extraction.status, 'pending', 'the scan waits for OCR');
      assert.equal(scan.gross_total, null);

      const ok = (await api.get(`/incoming-mailboxes/${good.body.data.id}`)).body.data;
      assert.equal(ok.status, 'ok');
      assert.ok(ok.last_polled_at);
      const log = (await api.get(`/incoming-mailboxes/${good.body.data.id}/log`)).body.data as Record<
        string,
        any
      >[];
      assert.deepEqual(
        log.map((e) => e.event),
        ['document', 'document', 'document'],
      );
      assert.deepEqual(log.map((e) => e.incoming_invoice_id).sort(), docs.map((d) => d.id).sort());

      const bad = (await api.get(`/incoming-mailboxes/${broken.body.data.id}`)).body.data;
      assert.equal(bad.status, 'error');
      assert.match(bad.last_error, /authentication failed/i);
      assert.equal(bad.failures, 1);
      assert.ok(Date.parse(bad.next_poll_at) > Date.now() + 30_000, 'retried after a back-off');
      const badLog = (await api.get(`/incoming-mailboxes/${broken.body.data.id}/log`)).body.data;
      assert.equal(badLog.length, 1);
      assert.equal(badLog[0].event, 'error');

      // Taken messages are flagged read; marked unread again and polled by a new worker (a
      // restart), none is taken twice. A new message with a file already stored is a duplicate.
      await imap('alice', 'alice-secret', async (c) => {
        const lock = await c.getMailboxLock('INBOX');
        try {
          assert.deepEqual(await c.search({ seen: false }), [], 'taken messages are flagged');
          await c.messageFlagsRemove('1:*', ['\\Seen']);
        } finally {
          lock.release();
        }
        await c.append(
          'INBOX',
          mimeMessage({
            from: 'billing@supplier.example',
            subject: 'Rechnung ZF-1 (reminder)',
            messageId: 'zf-1-again@supplier.example',
            attachments: [{ name: 'ZF-1 copy.pdf', type: 'application/pdf', data: zugferd }],
          }),
        );
      });
      await due();
      assert.equal(await worker().runOnce(), 2);
      assert.equal((await documents()).length, 3, 'nothing taken twice');
      const log2 = (await api.get(`/incoming-mailboxes/${good.body.data.id}/log`)).body.data as Record<
        string,
        any
      >[];
      const dup = log2.at(-1)!;
      assert.equal(dup.event, 'duplicate');
      assert.equal(dup.incoming_invoice_id, zf.id);
      assert.equal(dup.message_id, 'zf-1-again@supplier.example');
      assert.equal(log2.length, 4);
      const bad2 = (await api.get(`/incoming-mailboxes/${broken.body.data.id}`)).body.data;
      assert.equal(bad2.failures, 2, 'still failing, the wait grows');

      // The password put right: polled at once, and well.
      const fixed = await api.patch(`/incoming-mailboxes/${broken.body.data.id}`, { password: 'bob-secret' });
      assert.equal(fixed.status, 200, fixed.text);
      assert.equal(await worker().runOnce(), 1);
      const bob = (await api.get(`/incoming-mailboxes/${broken.body.data.id}`)).body.data;
      assert.deepEqual([bob.status, bob.last_error, bob.failures], ['ok', null, 0]);
    });

    it('a message delivered while the worker idles (IMAP IDLE) is taken within seconds', async () => {
      const made = await api.post('/incoming-mailboxes', {
        name: 'Carol (IDLE)',
        host: '127.0.0.1',
        port: dovecot.port,
        tls: false,
        username: 'carol',
        password: 'carol-secret',
      });
      assert.equal(made.status, 201, made.text);
      // The other mailboxes are not due; Carol's is polled first, then waited on in IDLE.
      const w = new MailboxWorker(ctx.db, ctx.kind, {
        secretKey: ctx.app.config.secretKey,
        extractor,
        timeoutMs: 5000,
        allowPrivate: true,
        pollIntervalMs: 100,
        idleMs: 30_000,
      });
      workers.push(w);
      w.start();
      const leased = async () =>
        (
          await ctx.db
            .selectFrom('incoming_mailboxes')
            .select('lease_token')
            .where('id', '=', made.body.data.id)
            .executeTakeFirstOrThrow()
        ).lease_token !== null;
      for (let i = 0; i < 100 && !(await leased()); i++) await new Promise((r) => setTimeout(r, 100));
      assert.ok(await leased(), 'the mailbox was claimed');
      // Long enough for the first (empty) pass to end and IDLE to begin.
      await new Promise((r) => setTimeout(r, 1500));
      const sent = Date.now();
      await imap('carol', 'carol-secret', (c) =>
        c
          .append(
            'INBOX',
            mimeMessage({
              from: 'billing@idle.example',
              subject: 'XRechnung ID-4',
              messageId: 'id-4@idle.example',
              body: {
                type: 'application/xml',
                data: Buffer.from(cii({ number: 'ID-4', net: '10.00', tax: '1.90', gross: '11.90' })),
              },
            }),
          )
          .then(() => {}),
      );
      let taken: Record<string, any> | undefined;
      while (!taken && Date.now() - sent < 15_000) {
        taken = (await documents()).find((d) => d.invoice_number === 'ID-4');
        if (!taken) await new Promise((r) => setTimeout(r, 100));
      }
      const waited = Date.now() - sent;
      assert.ok(taken, 'the message was taken');
      assert.ok(waited < 5000, `taken ${waited} ms after delivery, not at the next poll`);
      const stopping = Date.now();
      await w.stop();
      assert.ok(Date.now() - stopping < 3000, 'stop ends the IDLE wait');
    });
  },
  // Its mailboxes are on loopback (the test's own IMAP server).
  { config: { mailboxAllowPrivate: true } },
);

describeEachDb('incoming mailboxes: hosts a tenant may not make the service reach', (ctx) => {
  it('refuses loopback, private and link-local hosts (422 naming host) unless MAILBOX_ALLOW_PRIVATE', async () => {
    const api = await ctx.as('incoming-invoice:write incoming-invoice:read');
    const base = { username: 'u', password: 'p', tls: false };
    for (const host of [
      '127.0.0.1',
      'localhost',
      '10.0.0.5',
      '169.254.169.254',
      '[::1]',
      '::1',
      '192.168.1.10',
    ]) {
      const p = expectProblem(await api.post('/incoming-mailboxes', { ...base, host }), 422);
      assert.deepEqual(
        p.errors!.map((e) => e.field),
        ['host'],
        host,
      );
    }
    const public_ = await api.post('/incoming-mailboxes', { ...base, host: '93.184.215.14', active: false });
    assert.equal(public_.status, 201, public_.text);
    expectProblem(await api.patch(`/incoming-mailboxes/${public_.body.data.id}`, { host: '127.0.0.1' }), 422);
  });

  it('a stored host that now points inside is not connected to: the poll fails and says why', async () => {
    const api = await ctx.as('incoming-invoice:write incoming-invoice:read');
    const made = await api.post('/incoming-mailboxes', {
      username: 'u',
      password: 'p',
      tls: false,
      host: '93.184.215.14',
      active: false,
    });
    assert.equal(made.status, 201, made.text);
    // As if its name had been re-pointed at the service's own network since it was saved.
    await ctx.db
      .updateTable('incoming_mailboxes')
      .set({ host: '127.0.0.1', active: 1 })
      .where('id', '=', made.body.data.id)
      .execute();
    const worker = new MailboxWorker(ctx.db, ctx.kind, {
      secretKey: ctx.app.config.secretKey,
      extractor: createExtractor(ctx.app.config),
      timeoutMs: 2000,
    });
    try {
      assert.equal(await worker.runOnce(), 1);
    } finally {
      await worker.stop();
    }
    const after = (await api.get(`/incoming-mailboxes/${made.body.data.id}`)).body.data;
    assert.equal(after.status, 'error');
    assert.match(after.last_error, /loopback, private or reserved/);
  });
});
