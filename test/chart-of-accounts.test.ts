import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { type Api, describeEachDb, expectProblem } from './helpers.js';
import { type ChartIds, seedChart } from './incoming.fixtures.js';

describeEachDb('chart of accounts', (ctx) => {
  let reader: Api;
  let writer: Api;
  let none: Api;
  let other: Api;
  let chart: ChartIds;
  let invoiceA: number;
  let invoiceB: number;

  before(async () => {
    chart = await seedChart(ctx);
    reader = await ctx.as('chart-of-accounts:read');
    writer = await ctx.as('incoming-invoice:write');
    none = await ctx.as([]);
    other = await ctx.as('chart-of-accounts:read', { accountId: ctx.other.accountId });
    const a = await writer.post('/incoming-invoices', {
      invoice_number: 'A-1',
      date: '2026-03-01',
      gross_total: 119,
      tax_total: 19,
      bookings: [
        { chart_of_account_id: chart.office, amount: 100, cost_center: 'KST-1' },
        { chart_of_account_id: chart.phone, amount: 19, tax_rate: 0 },
      ],
    });
    assert.equal(a.status, 201, a.text);
    const b = await writer.post('/incoming-invoices', {
      invoice_number: 'B-1',
      date: '2026-05-10',
      gross_total: 50,
      bookings: [{ chart_of_account_id: chart.office, amount: 50 }],
    });
    assert.equal(b.status, 201, b.text);
    invoiceA = a.body.data.id;
    invoiceB = b.body.data.id;
  });

  it('lists accounts from the import, with filters', async () => {
    const all = await reader.get('/chart-of-accounts');
    assert.equal(all.status, 200);
    assert.deepEqual(
      all.body.data.map((a: { number: string }) => a.number),
      ['4930', '4920', '4940', '8400'],
    );
    const office = all.body.data[0];
    assert.deepEqual(Object.keys(office).sort(), [
      'active',
      'created_at',
      'id',
      'name',
      'number',
      'tax_rate',
      'type',
      'updated_at',
    ]);
    assert.equal(office.tax_rate, 19);
    assert.equal(office.active, true);
    assert.equal(all.body.data[3].active, false);
    const byNumber = await reader.get('/chart-of-accounts?number=4940');
    assert.deepEqual(
      byNumber.body.data.map((a: { tax_rate: number }) => a.tax_rate),
      [7],
    );
    const byType = await reader.get('/chart-of-accounts?type=revenue');
    assert.deepEqual(
      byType.body.data.map((a: { number: string }) => a.number),
      ['8400'],
    );
    const byQ = await reader.get('/chart-of-accounts?q=telef');
    assert.deepEqual(
      byQ.body.data.map((a: { id: number }) => a.id),
      [chart.phone],
    );
    expectProblem(await reader.get('/chart-of-accounts?type=bogus'), 422);
  });

  it('retrieves one account; 404 for another account’s', async () => {
    const one = await reader.get(`/chart-of-accounts/${chart.books}`);
    assert.equal(one.status, 200);
    assert.equal(one.body.data.name, 'Zeitschriften, Bücher');
    expectProblem(await other.get(`/chart-of-accounts/${chart.books}`), 404, 'not_found');
    expectProblem(await reader.get(`/chart-of-accounts/${chart.otherOffice}`), 404);
  });

  it('lists bookings with filters by account, invoice and date', async () => {
    const all = await reader.get('/chart-of-accounts/bookings');
    assert.equal(all.status, 200);
    assert.equal(all.body.meta.total, 3);
    const office = await reader.get(`/chart-of-accounts/bookings?chart_of_account_id=${chart.office}`);
    assert.deepEqual(
      office.body.data.map((b: { amount: number; incoming_invoice_id: number }) => [
        b.incoming_invoice_id,
        b.amount,
      ]),
      [
        [invoiceA, 100],
        [invoiceB, 50],
      ],
    );
    assert.equal(office.body.data[0].cost_center, 'KST-1');
    assert.equal(office.body.data[0].tax_rate, 19, 'defaults to the account’s rate');
    assert.equal(office.body.data[0].date, '2026-03-01');
    const byInvoice = await reader.get(`/chart-of-accounts/bookings?incoming_invoice_id=${invoiceA}`);
    assert.equal(byInvoice.body.data.length, 2);
    assert.equal(byInvoice.body.data[1].tax_rate, 0);
    const range = await reader.get('/chart-of-accounts/bookings?date_from=2026-04-01&date_to=2026-12-31');
    assert.deepEqual(
      range.body.data.map((b: { incoming_invoice_id: number }) => b.incoming_invoice_id),
      [invoiceB],
    );
    const otherList = await other.get('/chart-of-accounts/bookings');
    assert.equal(otherList.body.data.length, 0);
  });

  it('401 and 403 on every endpoint', async () => {
    for (const path of [
      '/chart-of-accounts',
      '/chart-of-accounts/bookings',
      `/chart-of-accounts/${chart.office}`,
    ]) {
      expectProblem(await ctx.anon.get(path), 401, 'unauthorized');
      const p = expectProblem(await none.get(path), 403, 'insufficient_scope');
      assert.deepEqual(p.required_scopes, ['chart-of-accounts:read']);
    }
  });
});
