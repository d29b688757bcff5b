import assert from 'node:assert/strict';
import { it } from 'node:test';
import { overdueInvoice } from './dunning.fixtures.js';
import { connectAgain, createAccount, describeEachDb, expectProblem, type TestContext } from './helpers.js';
import { ALL_INVOICE_SCOPES, bookNow, makeClient } from './invoicing.fixtures.js';

const DUNNING = ['dunning:read', 'dunning:write'];

/** A fresh account (its own letters and numbers) with a token for invoicing and dunning. */
async function account(ctx: TestContext) {
  const acc = await createAccount(ctx.db, { payment_accounts: [{ name: 'Bank' }] });
  const api = await ctx.as([...ALL_INVOICE_SCOPES, ...DUNNING], { userId: acc.users.admin });
  return { acc, api };
}

type Api = Awaited<ReturnType<typeof account>>['api'];

async function run(api: Api, date: string, dry_run?: boolean) {
  const res = await api.post('/dunning/run', { date, ...(dry_run === undefined ? {} : { dry_run }) });
  assert.equal(res.status, 200, res.text);
  return res.body.data as { created: any[]; would_create: any[]; settled: number };
}

async function pay(api: Api, invoice_id: number, amount: number, date: string) {
  const payment_account_id = (await api.get('/payment-accounts')).body.data[0].id;
  const r = await api.post('/payments/outgoing-invoice', { invoice_id, amount, date, payment_account_id });
  assert.equal(r.status, 201, r.text);
}

describeEachDb('dunning', (ctx) => {
  it('each level on its day and not before; fees and the lump sum once', async () => {
    const { api } = await account(ctx);
    const inv = await overdueInvoice(api, await makeClient(api));
    // Level 1: 7 days after the due date (23 March).
    assert.deepEqual((await run(api, '2026-03-22')).created, []);
    const [reminder] = (await run(api, '2026-03-23')).created;
    assert.deepEqual(
      [
        reminder.number,
        reminder.level,
        reminder.open_amount,
        reminder.fee,
        reminder.flat_fee,
        reminder.interest,
      ],
      ['MA-2026-00001', 1, 1190, 0, 0, 0],
    );
    assert.equal(reminder.total_due, 1190);
    assert.equal(reminder.status, 'open');
    assert.match(reminder.subject, new RegExp(inv.invoice_number));
    assert.deepEqual((await run(api, '2026-03-23')).created, [], 'the same day again makes nothing');

    // Level 2: 14 days after the reminder (6 April). Interest 17 March – 6 April, 21 days at
    // 1.27 + 9 = 10.27 %: 119000 × 1027 × 21 / 3,650,000 = 703.14 ct.
    assert.deepEqual((await run(api, '2026-04-05')).created, []);
    const dry = await run(api, '2026-04-06', true);
    assert.equal(dry.would_create.length, 1);
    assert.deepEqual(
      (await api.get(`/dunnings?invoice_id=${inv.id}`)).body.meta.total,
      1,
      'a dry run writes nothing',
    );
    const [first] = (await run(api, '2026-04-06')).created;
    assert.deepEqual(
      [first.number, first.level, first.fee, first.flat_fee, first.interest, first.total_due],
      ['MA-2026-00002', 2, 5, 40, 7.03, 1190 + 5 + 40 + 7.03],
    );
    assert.deepEqual(first.interest_breakdown, [
      {
        from: '2026-03-17',
        to: '2026-04-06',
        days: 21,
        open_amount: 1190,
        base_rate: 1.27,
        rate: 10.27,
        amount: 7.03,
        exact_amount: '7.031432',
      },
    ]);
    const amounts = (l: any) => [l.invoice_id, l.level, l.date, l.total_due, l.interest_breakdown];
    assert.deepEqual(amounts(first), amounts(dry.would_create[0]), 'the dry run answered what the run made');

    // Level 3: 14 days after that (20 April); the lump sum is not charged again. 35 days:
    // 119000 × 1027 × 35 / 3,650,000 = 1171.91 ct.
    assert.deepEqual((await run(api, '2026-04-19')).created, []);
    const [second] = (await run(api, '2026-04-20')).created;
    assert.deepEqual([second.level, second.fee, second.flat_fee, second.interest], [3, 10, 0, 11.72]);
    assert.deepEqual((await run(api, '2026-12-01')).created, [], 'no level after the last');

    const list = await api.get(`/dunnings?invoice_id=${inv.id}`);
    assert.deepEqual(
      list.body.data.map((l: any) => [l.level, l.number]),
      [
        [1, 'MA-2026-00001'],
        [2, 'MA-2026-00002'],
        [3, 'MA-2026-00003'],
      ],
    );
    assert.deepEqual(
      (await api.get(`/dunnings?level=2`)).body.data.map((l: any) => l.id),
      [first.id],
    );
    assert.deepEqual((await api.get(`/dunnings/${second.id}`)).body.data, second);
  });

  it('a payment between two runs stops the escalation and settles the open letters', async () => {
    const { api } = await account(ctx);
    const inv = await overdueInvoice(api, await makeClient(api));
    const [reminder] = (await run(api, '2026-03-23')).created;
    await pay(api, inv.id, 1190, '2026-03-30');
    // The payment settled the letter at once (test/dunning-settlement.test.ts): the run finds nothing.
    const later = await run(api, '2026-04-06');
    assert.deepEqual([later.created, later.settled], [[], 0]);
    const settled = (await api.get(`/dunnings/${reminder.id}`)).body.data;
    assert.equal(settled.status, 'settled');
    assert.ok(settled.settled_at);
  });

  it('a partial payment lowers the open amount from the day after it was received', async () => {
    const { api } = await account(ctx);
    const inv = await overdueInvoice(api, await makeClient(api));
    await run(api, '2026-03-23');
    await pay(api, inv.id, 190, '2026-03-30');
    const [letter] = (await run(api, '2026-04-06')).created;
    // 14 days on 1,190.00 and 7 on 1,000.00 at 10.27 %: (119000 × 14 + 100000 × 7) × 1027 /
    // 3,650,000 = 665.72 ct.
    assert.equal(letter.open_amount, 1000);
    assert.equal(letter.interest, 6.66);
    assert.deepEqual(
      letter.interest_breakdown.map((p: any) => [p.from, p.to, p.days, p.open_amount]),
      [
        ['2026-03-17', '2026-03-30', 14, 1190],
        ['2026-03-31', '2026-04-06', 7, 1000],
      ],
    );
    assert.equal(letter.total_due, 1000 + 5 + 40 + 6.66);
  });

  it('a blocked client is skipped; a consumer pays base rate + 5 and no lump sum', async () => {
    const { api } = await account(ctx);
    const blocked = await makeClient(api, { dunning_blocked: true });
    const consumer = await makeClient(api, { is_consumer: true, language: 'de' });
    const client = (await api.get(`/clients/${consumer}`)).body.data;
    assert.deepEqual([client.is_consumer, client.dunning_blocked], [true, false]);
    await overdueInvoice(api, blocked);
    const inv = await overdueInvoice(api, consumer);
    const first = await run(api, '2026-03-23');
    assert.deepEqual(
      first.created.map((l) => l.invoice_id),
      [inv.id],
    );
    assert.equal(first.created[0].language, 'de');
    assert.match(first.created[0].subject, /^Zahlungserinnerung/);
    const [letter] = (await run(api, '2026-04-06')).created;
    // 21 days at 1.27 + 5 = 6.27 %: 119000 × 627 × 21 / 3,650,000 = 429.28 ct.
    assert.deepEqual([letter.flat_fee, letter.interest, letter.interest_breakdown[0].rate], [0, 4.29, 6.27]);
    // Unblocked, the client's invoice is dunned from then on.
    assert.equal((await api.patch(`/clients/${blocked}`, { dunning_blocked: false })).status, 200);
    assert.equal((await run(api, '2026-04-06')).created.length, 1);
  });

  it('concurrent runs create each letter once, numbered without gaps', async () => {
    const { acc, api } = await account(ctx);
    const client = await makeClient(api);
    const invoices = [];
    for (let i = 0; i < 5; i++) invoices.push(await overdueInvoice(api, client));
    const runs: Promise<unknown>[] = [0, 1, 2].map(() => api.post('/dunning/run', { date: '2026-03-23' }));
    if (ctx.kind === 'postgres') {
      // Another process: a pool of its own on the same database.
      const again = connectAgain(ctx.handle);
      const { runDunning } = await import('../src/modules/dunning/dunning.public.js');
      runs.push(
        runDunning(again.db, acc.accountId, { date: '2026-03-23', dryRun: false }).finally(() =>
          again.destroy(),
        ),
      );
    }
    await Promise.all(runs);
    const letters = (await api.get('/dunnings?per_page=100')).body.data;
    assert.equal(letters.length, 5);
    assert.deepEqual(letters.map((l: any) => l.invoice_id).sort(), invoices.map((i) => i.id).sort());
    assert.deepEqual(
      letters.map((l: any) => l.number).sort(),
      [1, 2, 3, 4, 5].map((n) => `MA-2026-0000${n}`),
    );
  });

  it('the number series: one a year, without gaps', async () => {
    const { api } = await account(ctx);
    const client = await makeClient(api);
    await overdueInvoice(api, client);
    await overdueInvoice(api, client);
    await run(api, '2026-03-23');
    const res = await api.get('/dunning/number-series');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data, [
      {
        year: 2026,
        format: 'MA-{YYYY}-{NNNNN}',
        prefix: 'MA-2026-',
        last_sequence: 2,
        last_number: 'MA-2026-00002',
        letter_count: 2,
        gap_free: true,
        gaps: [],
      },
    ]);
    expectProblem(await api.get('/dunning/number-series?x=1'), 422);
  });

  it('a cancelled letter keeps its number and its level is not made again', async () => {
    const { api } = await account(ctx);
    const inv = await overdueInvoice(api, await makeClient(api));
    const [letter] = (await run(api, '2026-03-23')).created;
    const cancelled = await api.post(`/dunnings/${letter.id}/cancel`);
    assert.equal(cancelled.status, 200);
    assert.equal(cancelled.body.data.status, 'cancelled');
    assert.equal((await api.post(`/dunnings/${letter.id}/cancel`)).body.data.status, 'cancelled');
    assert.deepEqual((await run(api, '2026-03-24')).created, []);
    assert.deepEqual((await api.get(`/dunnings?status=cancelled&invoice_id=${inv.id}`)).body.meta.total, 1);
  });

  it('levels: built in by default, replaced as a whole, placeholders checked', async () => {
    const { api } = await account(ctx);
    const levels = (await api.get('/dunning/levels')).body.data;
    assert.equal(levels.updated_at, null);
    assert.deepEqual(
      levels.levels.map((l: any) => [l.level, l.days_after_due, l.fee, l.charge_interest, l.flat_fee]),
      [
        [1, 7, 0, false, false],
        [2, 14, 5, true, true],
        [3, 14, 10, true, true],
      ],
    );
    const one = {
      days_after_due: 3,
      fee: 2.5,
      charge_interest: true,
      flat_fee: false,
      delivery: 'post',
      texts: {
        de: { subject: 'Mahnung {letter_number}', body: 'Bitte zahlen Sie {total_due}.' },
        en: { subject: 'Reminder {letter_number}', body: 'Please pay {total_due}.' },
      },
    };
    const put = await api.put('/dunning/levels', { levels: [one] });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.body.data.levels, [{ level: 1, ...one }]);
    assert.deepEqual((await api.get('/dunning/levels')).body.data, put.body.data);

    const inv = await overdueInvoice(api, await makeClient(api));
    const [letter] = (await run(api, '2026-03-19')).created;
    assert.equal(letter.invoice_id, inv.id);
    assert.equal(letter.subject, 'Reminder MA-2026-00001');
    // 3 days at 10.27 % on 1,190.00: 100.45 ct; + 2.50 fee.
    assert.equal(letter.body, 'Please pay €1,193.50.');

    const bad = await api.put('/dunning/levels', {
      levels: [{ ...one, texts: { ...one.texts, en: { subject: 'x', body: '{nope}' } } }],
    });
    assert.deepEqual(
      expectProblem(bad, 422).errors!.map((e) => e.field),
      ['levels.0.texts.en.body'],
    );
  });

  it('base rates: the shipped table, extended by the account', async () => {
    const { api } = await account(ctx);
    const rates = (await api.get('/dunning/base-rates')).body.data;
    assert.deepEqual(rates[0], { valid_from: '2002-01-01', rate: 2.57, source: 'shipped' });
    assert.deepEqual(
      rates.find((r: any) => r.valid_from === '2024-07-01'),
      { valid_from: '2024-07-01', rate: 3.37, source: 'shipped' },
    );
    const put = await api.put('/dunning/base-rates/2026-07-01', { rate: 1.5 });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.body.data, { valid_from: '2026-07-01', rate: 1.5, source: 'account' });
    const after = (await api.get('/dunning/base-rates')).body.data;
    assert.deepEqual(after.at(-1), put.body.data);
    expectProblem(await api.put('/dunning/base-rates/2026-03-01', { rate: 1 }), 422);
    expectProblem(await api.put('/dunning/base-rates/2026-07-01', { rate: 1.234 }), 422);
  });

  it('a letter’s fee and interest become an invoice of their own, without VAT, once', async () => {
    const { api } = await account(ctx);
    const inv = await overdueInvoice(api, await makeClient(api));
    const [reminder] = (await run(api, '2026-03-23')).created;
    const [letter] = (await run(api, '2026-04-06')).created;
    const res = await api.post(`/dunnings/${letter.id}/invoice-charges`);
    assert.equal(res.status, 201, res.text);
    const charges = res.body.data;
    assert.equal(res.headers.location, `/api/v1/outgoing-invoices/${charges.id}`);
    assert.deepEqual(
      [charges.gross_total, charges.tax_total, charges.client_id, charges.tax_exemption_category],
      [5 + 40 + 7.03, 0, inv.client_id, 'O'],
    );
    const lines = (await api.get(`/outgoing-invoices/${charges.id}/line-items`)).body.data;
    assert.deepEqual(
      lines.map((l: any) => [l.unit_price, l.tax_rate]),
      [
        [5, 0],
        [40, 0],
        [7.03, 0],
      ],
    );
    assert.equal((await api.get(`/dunnings/${letter.id}`)).body.data.charges_invoice_id, charges.id);
    const booked = await bookNow(api, charges.id);
    assert.equal(booked.status, 'booked');
    expectProblem(await api.post(`/dunnings/${letter.id}/invoice-charges`), 409, 'conflict');
    expectProblem(await api.post(`/dunnings/${reminder.id}/invoice-charges`), 409, 'conflict');
    const dunningOnly = await ctx.as(DUNNING);
    assert.deepEqual(
      expectProblem(await dunningOnly.post(`/dunnings/${letter.id}/invoice-charges`), 403).required_scopes,
      ['dunning:write', 'outgoing-invoice:write'],
    );
  });

  it('every letter in the change feed, the event outbox and the audit log', async () => {
    const { acc, api } = await account(ctx);
    await overdueInvoice(api, await makeClient(api));
    const [letter] = (await run(api, '2026-03-23')).created;
    await api.post(`/dunnings/${letter.id}/cancel`);
    const db = ctx.db as any;
    const changes = await db
      .selectFrom('change_log')
      .select(['action'])
      .where('resource', '=', 'dunning')
      .where('resource_id', '=', letter.id)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      changes.map((c: any) => c.action),
      ['created', 'updated'],
    );
    const events = await db
      .selectFrom('events')
      .select(['kind', 'payload'])
      .where('resource_id', '=', letter.id)
      .where('kind', 'like', 'dunning:%')
      .execute();
    assert.deepEqual(
      events.map((e: any) => [e.kind, JSON.parse(e.payload).number]),
      [['dunning:created', letter.number]],
    );
    const audit = await db
      .selectFrom('audit_log')
      .select(['action', 'target_id'])
      .where('account_id', '=', acc.accountId)
      .where('target_type', '=', 'dunning')
      .orderBy('id')
      .execute();
    assert.deepEqual(
      audit.map((a: any) => [a.action, a.target_id]),
      [
        ['dunning.create', String(letter.id)],
        ['dunning.cancel', String(letter.id)],
      ],
    );
    // The feed serves the letter as GET /dunnings/{id} answers it.
    const feed = await ctx.as(['dunning:read'], { userId: acc.users.admin });
    let entry: any;
    for (let tries = 0; !entry && tries < 50; tries++) {
      const page = await feed.get('/changes?limit=100');
      entry = page.body.data.find((e: any) => e.resource === 'dunning' && e.id === letter.id);
      if (!entry) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(entry?.data?.number, letter.number);
  });

  it('the letter’s PDF, in German and in English', async () => {
    const { api } = await account(ctx);
    const de = await overdueInvoice(api, await makeClient(api, { language: 'de' }));
    const en = await overdueInvoice(api, await makeClient(api));
    await run(api, '2026-03-23');
    await pay(api, de.id, 190, '2026-03-30');
    const letters = (await run(api, '2026-04-06')).created;
    for (const [invoice, words] of [
      [de, ['1. Mahnung', 'Verzugszinsen', 'Zu zahlender Betrag']],
      [en, ['First dunning letter', 'Default interest', 'Amount due']],
    ] as const) {
      const letter = letters.find((l) => l.invoice_id === invoice.id);
      const res = await api.get(`/dunnings/${letter.id}/pdf`);
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-type'], 'application/pdf');
      const bytes = Buffer.from(res.text, 'binary');
      assert.equal(bytes.subarray(0, 5).toString(), '%PDF-');
      if (process.env.DUNNING_PDF_DIR) {
        const { writeFileSync } = await import('node:fs');
        const raw = await ctx.app.inject({
          url: `/api/v1/dunnings/${letter.id}/pdf`,
          headers: { authorization: `Bearer ${api.token}` },
        });
        writeFileSync(
          `${process.env.DUNNING_PDF_DIR}/${ctx.kind}-${words[0].replace(/\W/g, '')}.pdf`,
          raw.rawPayload,
        );
      }
    }
    expectProblem(await api.get('/dunnings/999999/pdf'), 404);
  });

  it('401, 403 per scope, 404 (another tenant’s letter too) and 422 on every operation', async () => {
    const { api } = await account(ctx);
    await overdueInvoice(api, await makeClient(api));
    const [letter] = (await run(api, '2026-03-23')).created;
    const reader = await ctx.as(['dunning:read']);
    const writer = await ctx.as(['dunning:write']);
    const stranger = await ctx.as(DUNNING);
    const ops: [string, string, unknown?][] = [
      ['GET', '/dunning/levels'],
      ['PUT', '/dunning/levels', { levels: [] }],
      ['GET', '/dunning/base-rates'],
      ['PUT', '/dunning/base-rates/2026-07-01', { rate: 1 }],
      ['POST', '/dunning/run', {}],
      ['GET', '/dunnings'],
      ['GET', '/dunning/number-series'],
      ['GET', `/dunnings/${letter.id}`],
      ['POST', `/dunnings/${letter.id}/cancel`],
      ['GET', `/dunnings/${letter.id}/pdf`],
      ['POST', `/dunnings/${letter.id}/invoice-charges`],
    ];
    for (const [method, path, body] of ops) {
      expectProblem(await ctx.anon.request(method as 'GET', path, body), 401);
      const wrong = method === 'GET' ? writer : reader;
      const problem = expectProblem(
        await wrong.request(method as 'GET', path, body),
        403,
        'insufficient_scope',
      );
      assert.ok(problem.required_scopes!.includes(method === 'GET' ? 'dunning:read' : 'dunning:write'), path);
    }
    expectProblem(await stranger.get(`/dunnings/${letter.id}`), 404);
    expectProblem(await stranger.post(`/dunnings/${letter.id}/cancel`), 404);
    expectProblem(await stranger.get(`/dunnings/${letter.id}/pdf`), 404);
    const strangerWithInvoices = await ctx.as([...DUNNING, 'outgoing-invoice:write']);
    expectProblem(await strangerWithInvoices.post(`/dunnings/${letter.id}/invoice-charges`), 404);
    expectProblem(await api.post('/dunnings/abc/invoice-charges'), 422);
    expectProblem(await api.get('/dunnings/999999'), 404);
    assert.deepEqual((await stranger.get('/dunnings')).body.data, []);

    expectProblem(await api.put('/dunning/levels', { levels: [] }), 422);
    expectProblem(await api.put('/dunning/levels', { levels: [], extra: 1 }), 422);
    expectProblem(await api.put('/dunning/base-rates/2026-07-01', { rate: 1, x: 1 }), 422);
    expectProblem(await api.put('/dunning/base-rates/2026-07-32', { rate: 1 }), 422);
    expectProblem(await api.post('/dunning/run', { date: '2999-01-01' }), 422);
    expectProblem(await api.post('/dunning/run', { dry_run: 'yes' }), 422);
    expectProblem(await api.get('/dunnings?unknown=1'), 422);
    expectProblem(await api.get('/dunnings?status=lost'), 422);
    expectProblem(await api.get('/dunnings/abc'), 422);
    expectProblem(await api.post('/dunnings/0/cancel'), 422);
  });
});
