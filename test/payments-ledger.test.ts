import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { importData } from '../src/import/index.js';
import { type Api, describeEachDb, expectProblem } from './helpers.js';
import {
  ALL_INVOICE_SCOPES,
  bookNow,
  freshAccount,
  line,
  makeClient,
  makeInvoice,
} from './invoicing.fixtures.js';

/** GET /payments is one ledger of all four kinds of payment, in one id space, each readable by id. */
describeEachDb('payments ledger', (ctx) => {
  let api: Api;
  let other: Api;
  let bank: number;
  let clientId: number;
  let accountId: number;
  const ids: Record<string, number> = {};

  const dated = { date: '2026-03-02', service_period_start: '2026-03-01', service_period_end: '2026-03-01' };
  const booked = async (lines = [line(100)], extra: Record<string, unknown> = {}) =>
    bookNow(api, (await makeInvoice(api, { client_id: clientId, ...dated, line_items: lines, ...extra })).id);
  const incoming = async (gross: number, document_type = 'Invoice') =>
    (await api.post('/incoming-invoices', { gross_total: gross, document_type })).body.data.id as number;
  const created = async (path: string, body: Record<string, unknown>) => {
    const res = await api.post(path, body);
    assert.equal(res.status, 201, `${path}: ${res.text}`);
    assert.equal(res.headers.location, `/api/v1/payments/${res.body.data.id}`, `${path}: Location`);
    return res.body.data;
  };

  before(async () => {
    const fresh = await freshAccount(ctx);
    accountId = fresh.acc.accountId;
    await importData(ctx.db, { payment_accounts: [{ name: 'Bank' }] }, { accountId: fresh.acc.accountId });
    api = await ctx.as([...ALL_INVOICE_SCOPES, 'incoming-invoice:read', 'incoming-invoice:write'], {
      userId: fresh.acc.users.admin,
    });
    other = await ctx.as('payments:read');
    bank = (await api.get('/payment-accounts')).body.data[0].id;
    clientId = await makeClient(api);

    // One of each kind, interleaved, so that both tables grow together.
    const invoice = await booked([line(100)]);
    ids.outgoing_invoice_target = invoice.id;
    ids.outgoing_invoice = (
      await created('/payments/outgoing-invoice', {
        invoice_id: invoice.id,
        amount: 30,
        date: '2026-04-01',
        payment_account_id: bank,
      })
    ).id;
    const a = await incoming(50);
    ids.incoming_invoice_target = a;
    ids.incoming_invoice = (
      await created('/payments/incoming-invoice', {
        amount: 20,
        date: '2026-04-05',
        payment_account_id: bank,
        incoming_invoice_id: a,
      })
    ).id;
    const credit = await booked([line(-10)], { type: 'credit', credited_invoice_id: invoice.id });
    ids.outgoing_credit = credit.id;
    ids.outgoing_invoice_credit = (
      await created('/payments/outgoing-invoice-credit', {
        invoice_id: invoice.id,
        credit_id: credit.id,
        date: '2026-04-10',
      })
    ).id;
    const incomingCredit = await incoming(5, 'Credit');
    ids.incoming_credit = incomingCredit;
    ids.incoming_invoice_credit = (
      await created('/payments/incoming-invoice-credit', {
        invoice_id: a,
        credit_id: incomingCredit,
        date: '2026-04-20',
      })
    ).id;
  });

  it('lists payments of all four kinds, each with its type, invoices, amount, date and account', async () => {
    const res = await api.get('/payments');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.meta.total, 4);
    const byType = Object.fromEntries(res.body.data.map((p: any) => [p.type, p]));
    assert.deepEqual(Object.keys(byType).sort(), [
      'incoming_invoice',
      'incoming_invoice_credit',
      'outgoing_invoice',
      'outgoing_invoice_credit',
    ]);
    assert.equal(new Set(res.body.data.map((p: any) => p.id)).size, 4, 'one id space');
    assert.deepEqual(
      res.body.data.map((p: any) => p.id),
      [...res.body.data.map((p: any) => p.id)].sort((x: number, y: number) => x - y),
    );
    const out = byType.outgoing_invoice;
    assert.equal(out.id, ids.outgoing_invoice);
    assert.equal(out.invoice_id, ids.outgoing_invoice_target);
    assert.equal(out.amount, 30);
    assert.equal(out.date, '2026-04-01');
    assert.equal(out.payment_account_id, bank);
    assert.deepEqual(out.incoming_invoices, []);
    assert.equal(byType.outgoing_invoice_credit.credit_id, ids.outgoing_credit);
    assert.equal(byType.outgoing_invoice_credit.amount, 11.9);
    const inc = byType.incoming_invoice;
    assert.equal(inc.invoice_id, null);
    assert.equal(inc.amount, 20);
    assert.equal(inc.payment_account_id, bank);
    assert.equal(inc.currency, 'EUR');
    assert.deepEqual(inc.incoming_invoices, [
      { incoming_invoice_id: ids.incoming_invoice_target, amount: 20 },
    ]);
    assert.deepEqual(byType.incoming_invoice_credit.incoming_invoices, [
      { incoming_invoice_id: ids.incoming_invoice_target, amount: 5 },
      { incoming_invoice_id: ids.incoming_credit, amount: 5 },
    ]);
  });

  it('filters by type, invoice and date range, and pages', async () => {
    const only = async (query: string) =>
      (await api.get(`/payments?${query}`)).body.data.map((p: any) => p.id);
    assert.deepEqual(await only('type=incoming_invoice'), [ids.incoming_invoice]);
    assert.deepEqual(await only('type=outgoing_invoice_credit'), [ids.outgoing_invoice_credit]);
    assert.deepEqual(await only(`outgoing_invoice_id=${ids.outgoing_invoice_target}`), [
      ids.outgoing_invoice,
      ids.outgoing_invoice_credit,
    ]);
    assert.deepEqual(await only(`outgoing_invoice_id=${ids.outgoing_credit}`), [ids.outgoing_invoice_credit]);
    assert.deepEqual(await only(`incoming_invoice_id=${ids.incoming_invoice_target}`), [
      ids.incoming_invoice,
      ids.incoming_invoice_credit,
    ]);
    assert.deepEqual(await only(`incoming_invoice_id=${ids.incoming_credit}`), [ids.incoming_invoice_credit]);
    assert.deepEqual(await only('date_from=2026-04-05&date_to=2026-04-10'), [
      ids.incoming_invoice,
      ids.outgoing_invoice_credit,
    ]);
    assert.deepEqual(await only(`payment_account_id=${bank}`), [ids.outgoing_invoice, ids.incoming_invoice]);
    const page = await api.get('/payments?per_page=3&page=2');
    assert.equal(page.body.meta.total, 4);
    assert.equal(page.body.data.length, 1);
    assert.match(String(page.headers.link), /rel="prev"/);
    expectProblem(await api.get('/payments?type=payment'), 422, 'validation_failed');
  });

  it('GET /payments/{id} reads each kind; another account’s or an unknown id is 404', async () => {
    const listed = (await api.get('/payments')).body.data;
    for (const p of listed) {
      const one = await api.get(`/payments/${p.id}`);
      assert.equal(one.status, 200, one.text);
      assert.deepEqual(one.body.data, p);
    }
    expectProblem(await other.get(`/payments/${ids.incoming_invoice}`), 404, 'not_found');
    expectProblem(await api.get('/payments/2000000000'), 404, 'not_found');
    const doc = await api.get('/openapi.json');
    assert.match(doc.body.paths['/api/v1/payments/{id}'].get.description, /beyond the specification/i);
  });

  it('incoming invoices show paid_total, open_total and payment_status', async () => {
    const status = async (id: number) => {
      const d = (await api.get(`/incoming-invoices/${id}`)).body.data;
      return [d.paid_total, d.open_total, d.payment_status];
    };
    assert.deepEqual(await status(ids.incoming_invoice_target), [25, 25, 'partially_paid']);
    assert.deepEqual(await status(ids.incoming_credit), [5, 0, 'paid']);
    assert.deepEqual(await status(await incoming(7)), [0, 7, 'unpaid']);
  });

  it('an incoming document with payments keeps its document_type (409)', async () => {
    expectProblem(
      await api.patch(`/incoming-invoices/${ids.incoming_invoice_target}`, { document_type: 'Credit' }),
      409,
      'document_has_payments',
    );
    const unpaid = await incoming(3);
    const res = await api.patch(`/incoming-invoices/${unpaid}`, { document_type: 'Credit' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.document_type, 'Credit');
  });
  it('payments written by the import take ids from the same space', async () => {
    const before = (await api.get('/payments?per_page=100')).body.data.map((p: any) => p.id);
    await importData(
      ctx.db,
      {
        clients: [{ key: 'imp', name: 'Imported client' }],
        payment_accounts: [{ key: 'imp-bank', name: 'Imported bank' }],
        outgoing_invoices: [
          {
            type: 'invoice',
            status: 'booked',
            invoice_number: 'IMP-1',
            client: 'imp',
            date: '2025-12-31',
            line_items: [{ title: 'Old work', quantity: 1, unit_price: 100, tax_rate: 19 }],
            payments: [{ amount: 50, date: '2026-01-10', payment_account: 'imp-bank' }],
          },
        ],
      },
      { accountId: accountId },
    );
    const after = (await api.get('/payments?per_page=100')).body.data.map((p: any) => p.id);
    assert.equal(after.length, before.length + 1);
    assert.equal(new Set(after).size, after.length);
    const imported = after.find((id: number) => !before.includes(id));
    assert.ok(imported > Math.max(...before), 'a fresh id above every payment of either kind');
    const res = await api.get(
      `/payments?outgoing_invoice_id=${(await api.get('/outgoing-invoices?invoice_number=IMP-1')).body.data[0].id}`,
    );
    assert.deepEqual(
      res.body.data.map((p: any) => p.id),
      [imported],
    );
    assert.equal((await api.get(`/payments/${imported}`)).body.data.type, 'outgoing_invoice');
  });
});
