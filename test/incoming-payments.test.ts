import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { importData } from '../src/import/index.js';
import { listIncomingPayments } from '../src/modules/payments/incoming-payments.repository.js';
import { type Api, countRows, describeEachDb, expectProblem, type Response } from './helpers.js';

describeEachDb('incoming invoice payments', (ctx) => {
  let docs: Api;
  let payer: Api;
  let none: Api;
  let other: Api;
  let bank: number;
  let foreignBank: number;

  const paymentAccount = async (accountId: number) => {
    await importData(ctx.db, { payment_accounts: [{ name: 'Bank', type: 'bank' }] }, { accountId });
    const row = await ctx.db
      .selectFrom('payment_accounts')
      .select('id')
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    return row.id;
  };

  before(async () => {
    bank = await paymentAccount(ctx.account.accountId);
    foreignBank = await paymentAccount(ctx.other.accountId);
    docs = await ctx.as('incoming-invoice:write incoming-invoice:read');
    payer = await ctx.as('payments:write');
    none = await ctx.as('incoming-invoice:write');
    other = await ctx.as('payments:write incoming-invoice:write', { accountId: ctx.other.accountId });
  });

  const doc = async (gross: number, document_type = 'Invoice') =>
    (await docs.post('/incoming-invoices', { gross_total: gross, document_type })).body.data.id as number;
  const read = async (id: number) => (await docs.get(`/incoming-invoices/${id}`)).body.data;
  /** The 201 is the record at its Location, field for field (one record, one shape). */
  const sameAsLocation = async (res: Response) => {
    const reader = await ctx.as('payments:read');
    assert.equal(res.headers.location, `/api/v1/payments/${res.body.data.id}`);
    const there = await reader.get(`/payments/${res.body.data.id}`);
    assert.equal(there.status, 200, there.text);
    assert.deepEqual(res.body.data, there.body.data);
  };
  const state = async () => ({
    payments: await countRows(ctx.db, 'incoming_payments'),
    allocations: await countRows(ctx.db, 'incoming_payment_allocations'),
  });

  it('one payment split over several invoices; sums exact; status follows', async () => {
    const a = await doc(100.1);
    const b = await doc(0.3);
    const res = await payer.post('/payments/incoming-invoice', {
      amount: 70.4,
      date: '2026-05-02',
      reference: 'SEPA 4711',
      payment_account_id: bank,
      invoices: [
        { incoming_invoice_id: a, amount: 70.1 },
        { incoming_invoice_id: b, amount: 0.3 },
      ],
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.type, 'incoming_invoice');
    assert.equal(res.body.data.amount, 70.4);
    assert.deepEqual(res.body.data.incoming_invoices, [
      { incoming_invoice_id: a, amount: 70.1 },
      { incoming_invoice_id: b, amount: 0.3 },
    ]);
    await sameAsLocation(res);
    const ra = await read(a);
    assert.equal(ra.paid_total, 70.1);
    assert.equal(ra.open_total, 30);
    assert.equal(ra.status, 'open');
    assert.equal((await read(b)).status, 'paid');
    const rest = await payer.post('/payments/incoming-invoice', {
      amount: 30,
      date: '2026-05-03',
      incoming_invoice_id: a,
    });
    assert.equal(rest.status, 201, rest.text);
    const paid = await read(a);
    assert.equal(paid.paid_total, 100.1);
    assert.equal(paid.open_total, 0);
    assert.equal(paid.status, 'paid');
    expectProblem(await docs.patch(`/incoming-invoices/${a}`, { status: 'open' }), 409, 'conflict');
    const listed = await listIncomingPayments(ctx.db, ctx.account.accountId);
    const mine = listed.filter((p) => p.allocations.some((x) => x.incoming_invoice_id === a));
    assert.deepEqual(
      mine.map((p) => p.amount),
      [7040, 3000],
    );
    assert.equal((await listIncomingPayments(ctx.db, ctx.other.accountId)).length, 0);
  });

  it('422: sum mismatch, overpayment, unknown or foreign documents; nothing changes', async () => {
    const a = await doc(50);
    const b = await doc(20);
    const foreign = (await other.post('/incoming-invoices', { gross_total: 10 })).body.data.id;
    const before = await state();
    const mismatch = expectProblem(
      await payer.post('/payments/incoming-invoice', {
        amount: 30,
        date: '2026-05-02',
        invoices: [
          { incoming_invoice_id: a, amount: 10 },
          { incoming_invoice_id: b, amount: 10 },
        ],
      }),
      422,
    );
    assert.deepEqual(
      mismatch.errors!.map((e) => e.field),
      ['invoices'],
    );
    const over = expectProblem(
      await payer.post('/payments/incoming-invoice', {
        amount: 40,
        date: '2026-05-02',
        invoices: [
          { incoming_invoice_id: a, amount: 19.99 },
          { incoming_invoice_id: b, amount: 20.01 },
        ],
      }),
      422,
    );
    assert.deepEqual(
      over.errors!.map((e) => e.field),
      ['invoices.1.amount'],
    );
    const ref = expectProblem(
      await payer.post('/payments/incoming-invoice', {
        amount: 5,
        date: '2026-05-02',
        incoming_invoice_id: foreign,
      }),
      422,
    );
    assert.deepEqual(
      ref.errors!.map((e) => e.field),
      ['incoming_invoice_id'],
    );
    for (const payment_account_id of [foreignBank, 2_000_000_000]) {
      const account = expectProblem(
        await payer.post('/payments/incoming-invoice', {
          amount: 5,
          date: '2026-05-02',
          incoming_invoice_id: a,
          payment_account_id,
        }),
        422,
      );
      assert.deepEqual(
        account.errors!.map((e) => e.field),
        ['payment_account_id'],
      );
    }
    expectProblem(
      await payer.post('/payments/incoming-invoice', {
        amount: 2,
        date: '2026-05-02',
        invoices: [
          { incoming_invoice_id: a, amount: 1 },
          { incoming_invoice_id: a, amount: 1 },
        ],
      }),
      422,
    );
    const bad = expectProblem(
      await payer.post('/payments/incoming-invoice', { amount: -1, date: 'today' }),
      422,
    );
    assert.deepEqual(bad.errors!.map((e) => e.field).sort(), ['amount', 'date']);
    expectProblem(await payer.post('/payments/incoming-invoice', { amount: 1, date: '2026-05-02' }), 422);
    assert.deepEqual(await state(), before);
    assert.equal((await read(a)).paid_total, 0);
    assert.equal((await read(b)).paid_total, 0);
  });

  it('sets a credit off against an invoice, within the open amounts of both', async () => {
    const inv = await doc(100);
    const credit = await doc(30, 'Credit');
    const res = await payer.post('/payments/incoming-invoice-credit', {
      invoice_id: inv,
      credit_id: credit,
      amount: 12.5,
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.type, 'incoming_invoice_credit');
    assert.equal(res.body.data.amount, 12.5);
    assert.deepEqual(res.body.data.incoming_invoices, [
      { incoming_invoice_id: inv, amount: 12.5 },
      { incoming_invoice_id: credit, amount: 12.5 },
    ]);
    await sameAsLocation(res);
    assert.equal((await read(inv)).open_total, 87.5);
    assert.equal((await read(credit)).open_total, 17.5);
    const rest = await payer.post('/payments/incoming-invoice-credit', {
      invoice_id: inv,
      credit_id: credit,
    });
    assert.equal(rest.body.data.amount, 17.5, 'defaults to the smaller open amount');
    const c = await read(credit);
    assert.equal(c.status, 'paid');
    assert.equal((await read(inv)).paid_total, 30);
    const before = await state();
    const more = expectProblem(
      await payer.post('/payments/incoming-invoice-credit', {
        invoice_id: inv,
        credit_id: credit,
        amount: 0.01,
      }),
      422,
    );
    assert.deepEqual(
      more.errors!.map((e) => e.field),
      ['amount'],
    );
    const credit2 = await doc(500, 'Credit');
    expectProblem(
      await payer.post('/payments/incoming-invoice-credit', {
        invoice_id: inv,
        credit_id: credit2,
        amount: 70.01,
      }),
      422,
    );
    const swapped = expectProblem(
      await payer.post('/payments/incoming-invoice-credit', { invoice_id: credit2, credit_id: inv }),
      422,
    );
    assert.deepEqual(swapped.errors!.map((e) => e.field).sort(), ['credit_id', 'invoice_id']);
    const foreign = (await other.post('/incoming-invoices', { gross_total: 10, document_type: 'Credit' }))
      .body.data.id;
    expectProblem(
      await payer.post('/payments/incoming-invoice-credit', { invoice_id: inv, credit_id: foreign }),
      422,
    );
    assert.deepEqual(await state(), before);
    assert.equal((await read(inv)).paid_total, 30);
  });

  it('401 without token, 403 without payments:write', async () => {
    for (const path of ['/payments/incoming-invoice', '/payments/incoming-invoice-credit']) {
      expectProblem(await ctx.anon.post(path, {}), 401, 'unauthorized');
      const p = expectProblem(await none.post(path, {}), 403, 'insufficient_scope');
      assert.deepEqual(p.required_scopes, ['payments:write']);
    }
  });
});
