import assert from 'node:assert/strict';
import { it } from 'node:test';
import { camt } from './bank.fixtures.js';
import { overdueInvoice } from './dunning.fixtures.js';
import { createAccount, describeEachDb, multipart, type TestContext } from './helpers.js';
import { ALL_INVOICE_SCOPES, bookNow, line, makeClient, makeInvoice } from './invoicing.fixtures.js';

const IBAN = 'DE02120300000000202051';

/** A fresh account with a bank account, and a token for invoicing, dunning and banking. */
async function account(ctx: TestContext) {
  const acc = await createAccount(ctx.db);
  const api = await ctx.as(
    [...ALL_INVOICE_SCOPES, 'dunning:read', 'dunning:write', 'banking:read', 'banking:write'],
    { userId: acc.users.admin },
  );
  const bank = await api.post('/payment-accounts', { name: 'Bank', iban: IBAN });
  assert.equal(bank.status, 201, bank.text);
  return { api, bankId: bank.body.data.id as number };
}

type Api = Awaited<ReturnType<typeof account>>['api'];

async function run(api: Api, date: string) {
  const res = await api.post('/dunning/run', { date });
  assert.equal(res.status, 200, res.text);
  return res.body.data as { created: any[]; settled: number };
}

const statusOf = async (api: Api, id: number) => (await api.get(`/dunnings/${id}`)).body.data.status;
const invoiceOf = async (api: Api, id: number) => (await api.get(`/outgoing-invoices/${id}`)).body.data;

describeEachDb('dunning: an invoice shows its letters; payments settle them at once', (ctx) => {
  it('an invoice answers its dunning level and letters, in a list with one query for the page', async () => {
    const { api } = await account(ctx);
    const client = await makeClient(api);
    const a = await overdueInvoice(api, client);
    const b = await overdueInvoice(api, client);
    assert.deepEqual([a.dunning_level, a.dunnings], [null, []], 'booked, not dunned yet');
    const [ra, rb] = (await run(api, '2026-03-23')).created;
    const cancel = await api.post(`/dunnings/${rb.id}/cancel`, {});
    assert.equal(cancel.status, 200, cancel.text);
    // b's only letter is cancelled: it stands on no level.
    const gb = await invoiceOf(api, b.id);
    assert.deepEqual(
      [gb.dunning_level, gb.dunnings.map((l: any) => [l.level, l.status])],
      [null, [[1, 'cancelled']]],
    );
    const [fa] = (await run(api, '2026-04-06')).created.filter((l) => l.invoice_id === a.id);
    const got = await invoiceOf(api, a.id);
    assert.equal(got.dunning_level, 2);
    assert.deepEqual(got.dunnings, [
      { id: ra.id, number: ra.number, level: 1, date: '2026-03-23', status: 'open', total_due: 1190 },
      { id: fa.id, number: fa.number, level: 2, date: '2026-04-06', status: 'open', total_due: fa.total_due },
    ]);
    assert.ok(got.updated_at >= fa.created_at, 'a letter marks its invoice changed');

    const list = (await api.get('/outgoing-invoices?status=booked&per_page=100')).body.data;
    const byId = new Map(list.map((i: any) => [i.id, i]));
    assert.deepEqual((byId.get(a.id) as any).dunnings, got.dunnings);
    assert.equal((byId.get(b.id) as any).dunning_level, 2);

    // A draft has no letters.
    const draft = await makeInvoice(api, { client_id: client, line_items: [line(5)] });
    assert.deepEqual([draft.dunning_level, draft.dunnings], [null, []]);
  });

  it('a payment that settles the invoice settles its letters in its transaction; a partial one does not', async () => {
    const { api, bankId } = await account(ctx);
    const inv = await overdueInvoice(api, await makeClient(api));
    const [reminder] = (await run(api, '2026-03-23')).created;
    const pay = (amount: number, date: string) =>
      api.post('/payments/outgoing-invoice', {
        invoice_id: inv.id,
        amount,
        date,
        payment_account_id: bankId,
      });

    assert.equal((await pay(190, '2026-03-25')).status, 201);
    assert.equal(await statusOf(api, reminder.id), 'open', 'a partial payment leaves the letter open');
    assert.equal((await pay(1000, '2026-03-30')).status, 201);
    const letter = (await api.get(`/dunnings/${reminder.id}`)).body.data;
    assert.equal(letter.status, 'settled', 'settled by the payment, not by the next run');
    assert.ok(letter.settled_at);
    const invoice = await invoiceOf(api, inv.id);
    assert.deepEqual(
      [invoice.payment_status, invoice.dunning_level, invoice.dunnings[0].status],
      ['paid', 1, 'settled'],
    );
    const later = await run(api, '2026-04-06');
    assert.deepEqual([later.created, later.settled], [[], 0], 'nothing left for the run');
  });

  it('a credit set off that settles the invoice settles its letters too', async () => {
    const { api } = await account(ctx);
    const client = await makeClient(api);
    const inv = await overdueInvoice(api, client);
    const [reminder] = (await run(api, '2026-03-23')).created;
    const credit = await makeInvoice(api, {
      client_id: client,
      type: 'credit',
      line_items: [line(-1000)],
    });
    await bookNow(api, credit.id);
    const res = await api.post('/payments/outgoing-invoice-credit', {
      invoice_id: inv.id,
      credit_id: credit.id,
      date: '2026-03-30',
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(await statusOf(api, reminder.id), 'settled');
  });

  it('a bank match undone opens the invoice again: its settled letters stand again, as they were', async () => {
    const { api } = await account(ctx);
    const inv = await overdueInvoice(api, await makeClient(api));
    const [reminder] = (await run(api, '2026-03-23')).created;
    // Sent letters go back to sent; the send path sets `sent_at`.
    await ctx.db
      .updateTable('dunning_letters')
      .set({ status: 'sent', sent_at: '2026-03-23T09:00:00.000Z' })
      .where('id', '=', reminder.id)
      .execute();

    const xml = camt('053', {
      iban: IBAN,
      opening: 0,
      from: '2026-03-30',
      to: '2026-03-30',
      id: 'S-dunning',
      entries: [{ booking: '2026-03-30', amount: 119000, text: 'Thank you', ref: 'R-1' }],
    });
    const { body, headers } = await multipart({ name: 's.xml', type: 'application/octet-stream', data: xml });
    const up = await api.request('POST', '/bank-statements', body, headers);
    assert.equal(up.status, 201, up.text);
    const [tx] = (await api.get(`/bank-transactions?statement_id=${up.body.data.id}`)).body.data;
    if (tx.status !== 'matched') {
      const m = await api.post(`/bank-transactions/${tx.id}/match`, {
        allocations: [{ invoice_id: inv.id, amount: 1190 }],
      });
      assert.equal(m.status, 200, m.text);
    }
    assert.equal((await invoiceOf(api, inv.id)).payment_status, 'paid');
    assert.equal(await statusOf(api, reminder.id), 'settled');

    const undone = await api.post(`/bank-transactions/${tx.id}/unmatch`, {});
    assert.equal(undone.status, 200, undone.text);
    const letter = (await api.get(`/dunnings/${reminder.id}`)).body.data;
    assert.deepEqual([letter.status, letter.settled_at], ['sent', null]);
    // The claim stands again: the run goes on with the next level on its day.
    const [next] = (await run(api, '2026-04-06')).created;
    assert.deepEqual([next.invoice_id, next.level], [inv.id, 2]);
  });
});
