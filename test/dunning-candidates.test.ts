import assert from 'node:assert/strict';
import { it } from 'node:test';
import { overdueInvoices } from '../src/modules/dunning/dunning.read-model.js';
import { overdueInvoice } from './dunning.fixtures.js';
import { createAccount, describeEachDb, type TestContext } from './helpers.js';
import { ALL_INVOICE_SCOPES, makeClient } from './invoicing.fixtures.js';

/**
 * The run reads the states of the overdue invoices that may concern it, not of every overdue
 * one: those settled by their stored totals without an open or sent letter are left out in SQL.
 * What the run does must not change by it.
 */

async function account(ctx: TestContext) {
  const acc = await createAccount(ctx.db, { payment_accounts: [{ name: 'Bank' }] });
  const api = await ctx.as([...ALL_INVOICE_SCOPES, 'dunning:read', 'dunning:write'], {
    userId: acc.users.admin,
  });
  const paymentAccountId = (await api.get('/payment-accounts')).body.data[0].id as number;
  return { acc, api, paymentAccountId };
}

type Api = Awaited<ReturnType<typeof account>>['api'];

async function run(api: Api, date: string) {
  const res = await api.post('/dunning/run', { date });
  assert.equal(res.status, 200, res.text);
  return res.body.data as { created: any[]; settled: number };
}

describeEachDb('dunning: the candidates of a run', (ctx) => {
  it('paid invoices are not read, unless a letter of theirs stands; the rest are dunned as before', async () => {
    const { acc, api, paymentAccountId } = await account(ctx);
    const clientId = await makeClient(api);
    const [paid, overpaid, partial, open, unstored, lettered] = [
      (await overdueInvoice(api, clientId)).id as number,
      (await overdueInvoice(api, clientId)).id as number,
      (await overdueInvoice(api, clientId)).id as number,
      (await overdueInvoice(api, clientId)).id as number,
      (await overdueInvoice(api, clientId)).id as number,
      (await overdueInvoice(api, clientId)).id as number,
    ];
    const pay = async (invoice_id: number, amount: number) => {
      const r = await api.post('/payments/outgoing-invoice', {
        invoice_id,
        amount,
        date: '2026-03-18',
        payment_account_id: paymentAccountId,
      });
      assert.equal(r.status, 201, r.text);
    };
    await pay(paid, 1190);
    await pay(partial, 1189.99);
    const db = ctx.db as any;
    // Paid more than its total (written straight into the table, as older data may hold it).
    await db
      .insertInto('payments')
      .values({
        account_id: acc.accountId,
        type: 'outgoing_invoice',
        invoice_id: overpaid,
        payment_account_id: paymentAccountId,
        amount: 119_500,
        currency: 'EUR',
        date: '2026-03-18',
      })
      .execute();
    // Stored totals unknown: the invoice's state adds up its lines.
    await db
      .updateTable('outgoing_invoices')
      .set({ lines_net: null, lines_tax: null, lines_gross: null, lines_taxes: null })
      .where('id', '=', unstored)
      .execute();

    const candidates = (await overdueInvoices(ctx.db, acc.accountId, '2026-03-23')).map((c) => c.id);
    assert.deepEqual(candidates, [partial, open, unstored, lettered]);

    const first = await run(api, '2026-03-23');
    assert.deepEqual(
      first.created.map((l) => [l.invoice_id, l.open_amount]),
      [
        [partial, 0.01],
        [open, 1190],
        [unstored, 1190],
        [lettered, 1190],
      ],
    );

    // Paid in full by a payment that did not settle the letter (written straight into the
    // table): the invoice stays a candidate while its letter stands, and the run settles it.
    await db
      .insertInto('payments')
      .values({
        account_id: acc.accountId,
        type: 'outgoing_invoice',
        invoice_id: lettered,
        payment_account_id: paymentAccountId,
        amount: 119_000,
        currency: 'EUR',
        date: '2026-03-24',
      })
      .execute();
    assert.ok((await overdueInvoices(ctx.db, acc.accountId, '2026-03-25')).some((c) => c.id === lettered));
    const second = await run(api, '2026-03-25');
    assert.deepEqual([second.created, second.settled], [[], 1]);
    const letter = first.created.find((l) => l.invoice_id === lettered);
    assert.equal((await api.get(`/dunnings/${letter.id}`)).body.data.status, 'settled');
    assert.ok(!(await overdueInvoices(ctx.db, acc.accountId, '2026-03-26')).some((c) => c.id === lettered));
  });

  it('reads the account a window at a time: every candidate once, in id order, past many windows', async () => {
    const acc = await createAccount(ctx.db, {
      clients: [{ key: 'c', name: 'Late payer' }],
      outgoing_invoices: Array.from({ length: 23 }, (_, i) => ({
        status: 'booked',
        invoice_number: `W-${i}`,
        client: 'c',
        date: '2026-03-02',
        // Every third one is not due yet: windows hold candidates and others.
        due_date: i % 3 === 2 ? '2026-12-31' : '2026-03-16',
        line_items: [{ title: 'Work', quantity: 1, unit_price: 100, tax_rate: 19 }],
      })),
    });
    const all = await overdueInvoices(ctx.db, acc.accountId, '2026-03-23');
    assert.equal(all.length, 16);
    for (const window of [1, 2, 5, 7, 16, 100]) {
      const ids = (await overdueInvoices(ctx.db, acc.accountId, '2026-03-23', window)).map((c) => c.id);
      assert.deepEqual(
        ids,
        all.map((c) => c.id),
        `window ${window}`,
      );
    }
  });
});
