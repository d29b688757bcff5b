import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { importData } from '../src/import/index.js';
import { type Api, countRows, describeEachDb, expectProblem } from './helpers.js';
import { bookNow, line, makeClient, makeInvoice } from './invoicing.fixtures.js';

describeEachDb('payments', (ctx) => {
  let api: Api;
  let reader: Api;
  let payer: Api;
  let clientId: number;
  let bankId: number;
  let cashId: number;

  before(async () => {
    await importData(
      ctx.db,
      {
        payment_accounts: [
          {
            key: 'bank',
            name: 'Business account',
            iban: 'DE02120300000000202051',
            bic: 'BYLADEM1001',
            bank_name: 'DKB',
          },
          { key: 'cash', name: 'Petty cash', type: 'cash' },
        ],
      },
      { accountId: ctx.account.accountId },
    );
    await importData(ctx.db, { payment_accounts: [{ name: 'Foreign' }] }, { accountId: ctx.other.accountId });
    api = await ctx.as(
      'outgoing-invoice:read outgoing-invoice:write outgoing-invoice:book client:write payments:read payments:write',
    );
    reader = await ctx.as('payments:read');
    payer = await ctx.as('payments:write');
    clientId = await makeClient(api);
    const accounts = (await reader.get('/payment-accounts')).body.data;
    bankId = accounts[0].id;
    cashId = accounts[1].id;
  });

  const bookedInvoice = async (lines = [line(100)], client = clientId) => {
    const inv = await makeInvoice(api, { client_id: client, line_items: lines });
    return bookNow(api, inv.id);
  };
  const pay = (invoice_id: number, amount: number, extra: Record<string, unknown> = {}) =>
    payer.post('/payments/outgoing-invoice', {
      invoice_id,
      amount,
      date: '2026-04-01',
      payment_account_id: bankId,
      ...extra,
    });

  it('GET /payment-accounts lists the account’s payment accounts (from the import)', async () => {
    const res = await reader.get('/payment-accounts');
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.data.map((a: any) => [a.name, a.type, a.iban, a.bic, a.bank_name, a.currency]),
      [
        ['Business account', 'bank', 'DE02120300000000202051', 'BYLADEM1001', 'DKB', 'EUR'],
        ['Petty cash', 'cash', null, null, null, 'EUR'],
      ],
    );
    assert.equal(res.body.meta.total, 2);
    assert.deepEqual(
      (await reader.get('/payment-accounts?type=cash')).body.data.map((a: any) => a.id),
      [cashId],
    );
    expectProblem(await ctx.anon.get('/payment-accounts'), 401);
    assert.deepEqual(expectProblem(await payer.get('/payment-accounts'), 403).required_scopes, [
      'payments:read',
    ]);
  });

  it('records payments: partially paid, then paid; the invoice shows paid_total, open_total, payment_status', async () => {
    const inv = await bookedInvoice([line(33.33), line(33.33), line(33.33)]);
    assert.equal(inv.gross_total, 118.99);
    assert.equal(inv.payment_status, 'unpaid');
    const first = await pay(inv.id, 100.5, { description: 'Transfer 1' });
    assert.equal(first.status, 201);
    const p = first.body.data;
    assert.equal(first.headers.location, `/api/v1/payments/${p.id}`);
    assert.deepEqual(
      [p.type, p.invoice_id, p.credit_id, p.payment_account_id, p.amount, p.currency, p.date, p.description],
      ['outgoing_invoice', inv.id, null, bankId, 100.5, 'EUR', '2026-04-01', 'Transfer 1'],
    );
    assert.deepEqual(p.invoice, {
      id: inv.id,
      paid_total: 100.5,
      open_total: 18.49,
      payment_status: 'partially_paid',
    });
    let read = (await api.get(`/outgoing-invoices/${inv.id}`)).body.data;
    assert.deepEqual(
      [read.paid_total, read.open_total, read.payment_status],
      [100.5, 18.49, 'partially_paid'],
    );
    const second = await pay(inv.id, 18.49, { payment_account_id: cashId });
    assert.deepEqual(second.body.data.invoice, {
      id: inv.id,
      paid_total: 118.99,
      open_total: 0,
      payment_status: 'paid',
    });
    read = (await api.get(`/outgoing-invoices/${inv.id}`)).body.data;
    assert.equal(read.payment_status, 'paid');
    const listed = await reader.get(`/payments?invoice_id=${inv.id}`);
    assert.deepEqual(
      listed.body.data.map((x: any) => x.amount),
      [100.5, 18.49],
    );
    const byLocation = await reader.get(first.headers.location!.replace('/api/v1', '') as string);
    assert.deepEqual(
      byLocation.body.data,
      Object.fromEntries(Object.entries(p).filter(([k]) => k !== 'invoice')),
    );
  });

  it('refuses overpaying, paying unbooked invoices, credits and bad input (422); nothing is written', async () => {
    const inv = await bookedInvoice([line(10)]);
    const before = await countRows(ctx.db, 'payments');
    assert.deepEqual(
      expectProblem(await pay(inv.id, 11.91), 422, 'validation_failed').errors!.map((e) => e.field),
      ['amount'],
    );
    await pay(inv.id, 11);
    assert.deepEqual(
      expectProblem(await pay(inv.id, 0.91), 422).errors!.map((e) => e.field),
      ['amount'],
    );
    const after = await countRows(ctx.db, 'payments');
    assert.equal(after, before + 1);
    const open = await makeInvoice(api, { client_id: clientId, line_items: [line(10)] });
    assert.deepEqual(
      expectProblem(await pay(open.id, 1), 422).errors!.map((e) => e.field),
      ['invoice_id'],
    );
    const credit = await makeInvoice(api, { type: 'credit', client_id: clientId, line_items: [line(-10)] });
    await bookNow(api, credit.id);
    expectProblem(await pay(credit.id, 1), 422);
    assert.deepEqual(
      expectProblem(await pay(inv.id, 0.001), 422).errors!.map((e) => e.field),
      ['amount'],
    );
    expectProblem(await pay(inv.id, 0), 422);
    expectProblem(await pay(inv.id, -5), 422);
    const refs = await pay(999999, 1, { payment_account_id: 999999 });
    assert.deepEqual(
      expectProblem(refs, 422, 'invalid_reference')
        .errors!.map((e) => e.field)
        .sort(),
      ['invoice_id', 'payment_account_id'],
    );
    const foreign = (await ctx.db
      .selectFrom('payment_accounts')
      .select('id')
      .where('account_id', '=', ctx.other.accountId)
      .executeTakeFirst())!;
    expectProblem(await pay(inv.id, 1, { payment_account_id: foreign.id }), 422, 'invalid_reference');
    const missing = await payer.post('/payments/outgoing-invoice', { invoice_id: inv.id });
    assert.deepEqual(
      expectProblem(missing, 422)
        .errors!.map((e) => e.field)
        .sort(),
      ['amount', 'date', 'payment_account_id'],
    );
    assert.equal(await countRows(ctx.db, 'payments'), after);
    assert.equal((await api.get(`/outgoing-invoices/${inv.id}`)).body.data.open_total, 0.9);
  });

  it('a credit settles that part of an invoice, once; both show it', async () => {
    const inv = await bookedInvoice([line(100)]);
    const creditDraft = await makeInvoice(api, {
      type: 'credit',
      client_id: clientId,
      credited_invoice_id: inv.id,
      line_items: [line(-50)],
    });
    const unbooked = await payer.post('/payments/outgoing-invoice-credit', {
      invoice_id: inv.id,
      credit_id: creditDraft.id,
    });
    assert.deepEqual(
      expectProblem(unbooked, 422).errors!.map((e) => e.field),
      ['credit_id'],
    );
    const credit = await bookNow(api, creditDraft.id);
    assert.equal(credit.credited_invoice_id, inv.id);
    const res = await payer.post('/payments/outgoing-invoice-credit', {
      invoice_id: inv.id,
      credit_id: credit.id,
    });
    assert.equal(res.status, 201);
    const p = res.body.data;
    assert.deepEqual(
      [p.type, p.invoice_id, p.credit_id, p.amount, p.payment_account_id],
      ['outgoing_invoice_credit', inv.id, credit.id, 59.5, null],
    );
    assert.deepEqual(p.invoice, {
      id: inv.id,
      paid_total: 59.5,
      open_total: 59.5,
      payment_status: 'partially_paid',
    });
    const c = (await api.get(`/outgoing-invoices/${credit.id}`)).body.data;
    assert.deepEqual(
      [c.gross_total, c.paid_total, c.open_total, c.payment_status],
      [-59.5, -59.5, 0, 'paid'],
    );
    expectProblem(
      await payer.post('/payments/outgoing-invoice-credit', { invoice_id: inv.id, credit_id: credit.id }),
      409,
      'conflict',
    );
    await pay(inv.id, 59.5);
    assert.equal((await api.get(`/outgoing-invoices/${inv.id}`)).body.data.payment_status, 'paid');
    const listed = await reader.get(`/payments?credit_id=${credit.id}`);
    assert.deepEqual(
      listed.body.data.map((x: any) => x.id),
      [p.id],
    );
    assert.equal(
      (await reader.get(`/payments?type=outgoing_invoice_credit&invoice_id=${inv.id}`)).body.meta.total,
      1,
    );
  });

  it('credit association: 422 for another client, a larger credit, non-credits; 404-free for strangers', async () => {
    const inv = await bookedInvoice([line(10)]);
    const otherClient = await makeClient(api);
    const foreignCredit = await makeInvoice(api, {
      type: 'credit',
      client_id: otherClient,
      line_items: [line(-1)],
    });
    await bookNow(api, foreignCredit.id);
    const body = (credit_id: number) => ({ invoice_id: inv.id, credit_id });
    assert.match(
      expectProblem(await payer.post('/payments/outgoing-invoice-credit', body(foreignCredit.id)), 422)
        .errors![0]!.message,
      /another client/,
    );
    const big = await makeInvoice(api, { type: 'credit', client_id: clientId, line_items: [line(-20)] });
    await bookNow(api, big.id);
    expectProblem(await payer.post('/payments/outgoing-invoice-credit', body(big.id)), 422);
    const notCredit = await bookedInvoice([line(1)]);
    expectProblem(await payer.post('/payments/outgoing-invoice-credit', body(notCredit.id)), 422);
    expectProblem(
      await payer.post('/payments/outgoing-invoice-credit', { invoice_id: 999999, credit_id: big.id }),
      422,
      'invalid_reference',
    );
    expectProblem(await payer.post('/payments/outgoing-invoice-credit', { invoice_id: inv.id }), 422);
    const stranger = await ctx.as('payments:write payments:read', { accountId: ctx.other.accountId });
    expectProblem(
      await stranger.post('/payments/outgoing-invoice', {
        invoice_id: inv.id,
        amount: 1,
        date: '2026-01-01',
        payment_account_id: bankId,
      }),
      422,
      'invalid_reference',
    );
    expectProblem(
      await stranger.post('/payments/outgoing-invoice-credit', body(big.id)),
      422,
      'invalid_reference',
    );
    const theirs = await stranger.get('/payments?per_page=100');
    assert.equal(theirs.body.meta.total, 0);
    assert.equal((await stranger.get('/payment-accounts')).body.data[0].name, 'Foreign');
    assert.equal((await api.get(`/outgoing-invoices/${inv.id}`)).body.data.paid_total, 0);
  });

  it('the final invoice of a partial plan is paid on what it still invoices', async () => {
    const plan = (
      await api.post('/outgoing-invoices/partial-plans', { client_id: clientId, line_items: [line(1000)] })
    ).body.data;
    const deposit = (
      await api.post(`/outgoing-invoices/${plan.id}/plan-invoices`, { type: 'deposit', value: 400 })
    ).body.data;
    await bookNow(api, deposit.id);
    const final = await bookNow(api, plan.final_invoice_id);
    assert.equal(final.gross_total, 714);
    expectProblem(await pay(final.id, 714.01), 422);
    assert.equal((await pay(final.id, 714)).body.data.invoice.payment_status, 'paid');
  });

  it('lists filter by type, account, date range; scopes are enforced', async () => {
    const inv = await bookedInvoice([line(100)]);
    await pay(inv.id, 10, { date: '2025-01-10' });
    await pay(inv.id, 20, { date: '2025-02-10', payment_account_id: cashId });
    const amounts = async (q: string) =>
      (await reader.get(`/payments?invoice_id=${inv.id}&${q}`)).body.data.map((x: any) => x.amount);
    assert.deepEqual(await amounts(''), [10, 20]);
    assert.deepEqual(await amounts(`payment_account_id=${cashId}`), [20]);
    assert.deepEqual(await amounts('date_from=2025-02-01'), [20]);
    assert.deepEqual(await amounts('date_to=2025-01-31'), [10]);
    assert.deepEqual(await amounts('type=outgoing_invoice_credit'), []);
    expectProblem(await ctx.anon.get('/payments'), 401);
    expectProblem(await ctx.anon.post('/payments/outgoing-invoice', {}), 401);
    expectProblem(await ctx.anon.post('/payments/outgoing-invoice-credit', {}), 401);
    assert.deepEqual(expectProblem(await payer.get('/payments'), 403).required_scopes, ['payments:read']);
    assert.deepEqual(
      expectProblem(await reader.post('/payments/outgoing-invoice', { nonsense: true }), 403).required_scopes,
      ['payments:write'],
    );
    assert.deepEqual(
      expectProblem(await reader.post('/payments/outgoing-invoice-credit', {}), 403).required_scopes,
      ['payments:write'],
    );
  });
});
