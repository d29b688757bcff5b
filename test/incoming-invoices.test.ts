import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { type Api, countRows, describeEachDb, expectProblem } from './helpers.js';
import { type ChartIds, seedChart } from './incoming.fixtures.js';

describeEachDb('incoming invoices', (ctx) => {
  let writer: Api;
  let reader: Api;
  let booker: Api;
  let none: Api;
  let other: Api;
  let chart: ChartIds;
  let supplierId: number;

  before(async () => {
    chart = await seedChart(ctx);
    writer = await ctx.as('incoming-invoice:write incoming-invoice:read');
    reader = await ctx.as('incoming-invoice:read');
    booker = await ctx.as('incoming-invoice:write chart-of-accounts:write');
    none = await ctx.as([]);
    other = await ctx.as('incoming-invoice:write incoming-invoice:read chart-of-accounts:write', {
      accountId: ctx.other.accountId,
    });
    const s = await writer.post('/suppliers', { name: 'Büro Schmidt', chart_of_account_id: chart.office });
    supplierId = s.body.data.id;
  });

  const create = (body: Record<string, unknown>) => writer.post('/incoming-invoices', body);

  it('creates a document with inline bookings; money exact in cents', async () => {
    const res = await create({
      supplier_id: supplierId,
      invoice_number: 'RE-2026-17',
      date: '2026-04-01',
      due_date: '2026-04-15',
      net_total: 100.1,
      tax_total: 19.02,
      description: 'Toner',
      bookings: [
        { amount: 70.07, cost_center: 'KST-100' },
        { chart_of_account_id: chart.books, amount: 49.05 },
      ],
    });
    assert.equal(res.status, 201, res.text);
    const d = res.body.data;
    assert.equal(res.headers.location, `/api/v1/incoming-invoices/${d.id}`);
    assert.equal(d.document_type, 'Invoice');
    assert.equal(d.gross_total, 119.12);
    assert.equal(d.paid_total, 0);
    assert.equal(d.open_total, 119.12);
    assert.equal(d.status, 'open');
    assert.equal(d.currency, 'EUR');
    assert.equal(d.file_id, null);
    assert.deepEqual(d.extracted_fields, []);
    assert.equal(d.bookings.length, 2);
    assert.equal(d.bookings[0].chart_of_account_id, chart.office, 'supplier default account');
    assert.equal(d.bookings[0].tax_rate, 19);
    assert.equal(d.bookings[0].cost_center, 'KST-100');
    assert.equal(d.bookings[1].tax_rate, 7);
    const row = await ctx.db
      .selectFrom('incoming_invoices')
      .select(['gross_total', 'net_total'])
      .where('id', '=', d.id)
      .executeTakeFirstOrThrow();
    assert.equal(Number(row.gross_total), 11912);
    assert.equal(Number(row.net_total), 10010);
    assert.deepEqual((await reader.get(`/incoming-invoices/${d.id}`)).body.data, d);
  });

  it('lists with filters', async () => {
    const credit = await create({
      document_type: 'Credit',
      date: '2026-06-01',
      gross_total: 10,
      supplier_id: supplierId,
    });
    await create({ date: '2025-01-01', gross_total: 5, status: 'approved' });
    const credits = await reader.get('/incoming-invoices?document_type=Credit');
    assert.deepEqual(
      credits.body.data.map((d: { id: number }) => d.id),
      [credit.body.data.id],
    );
    const approved = await reader.get('/incoming-invoices?status=approved');
    assert.ok(approved.body.data.every((d: { status: string }) => d.status === 'approved'));
    assert.equal(approved.body.data.length, 1);
    const bySupplier = await reader.get(`/incoming-invoices?supplier_id=${supplierId}`);
    assert.ok(bySupplier.body.data.every((d: { supplier_id: number }) => d.supplier_id === supplierId));
    const range = await reader.get('/incoming-invoices?date_from=2026-05-01&date_to=2026-12-31');
    assert.deepEqual(
      range.body.data.map((d: { id: number }) => d.id),
      [credit.body.data.id],
    );
    assert.equal(
      (await reader.get('/incoming-invoices?updated_since=2999-01-01T00:00:00Z')).body.meta.total,
      0,
    );
    assert.equal((await other.get('/incoming-invoices')).body.meta.total, 0);
  });

  it('PATCH changes document fields only', async () => {
    const inv = await create({
      gross_total: 100,
      bookings: [{ chart_of_account_id: chart.office, amount: 60 }],
    });
    const id = inv.body.data.id;
    const res = await writer.patch(`/incoming-invoices/${id}`, {
      invoice_number: 'X-9',
      status: 'approved',
      gross_total: 80,
      tax_total: 12.77,
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.invoice_number, 'X-9');
    assert.equal(res.body.data.status, 'approved');
    assert.equal(res.body.data.net_total, 67.23);
    assert.deepEqual(res.body.data.bookings, inv.body.data.bookings);
    // Below the booked 60: refused, nothing changed.
    const p = expectProblem(
      await writer.patch(`/incoming-invoices/${id}`, { gross_total: 50, description: 'x' }),
      422,
    );
    assert.deepEqual(
      p.errors!.map((e) => e.field),
      ['gross_total'],
    );
    const again = await reader.get(`/incoming-invoices/${id}`);
    assert.equal(again.body.data.gross_total, 80);
    assert.equal(again.body.data.description, null);
    expectProblem(await writer.patch(`/incoming-invoices/${id}`, { status: 'paid' }), 422);
    expectProblem(
      await writer.patch(`/incoming-invoices/${id}`, { net_total: 1, tax_total: 1, gross_total: 3 }),
      422,
    );
  });

  it('PATCH ignores the read-only bookings, so a client may send back what it read', async () => {
    const inv = await create({
      gross_total: 100,
      bookings: [{ chart_of_account_id: chart.office, amount: 60 }],
    });
    const read = inv.body.data;
    const { id, bookings } = read;
    const echoed = await writer.patch(`/incoming-invoices/${id}`, { description: 'sent back', bookings });
    assert.equal(echoed.status, 200, echoed.text);
    assert.equal(echoed.body.data.description, 'sent back');
    assert.deepEqual(echoed.body.data.bookings, bookings);
    // Other bookings, or none, change nothing either: bookings have their own routes.
    const emptied = await writer.patch(`/incoming-invoices/${id}`, { bookings: [] });
    assert.equal(emptied.status, 200, emptied.text);
    assert.deepEqual(emptied.body.data.bookings, bookings);
    assert.equal(emptied.body.data.updated_at, echoed.body.data.updated_at, 'nothing changed');
    const other = await writer.patch(`/incoming-invoices/${id}`, {
      bookings: [{ chart_of_account_id: chart.office, amount: 99 }],
    });
    assert.equal(other.status, 200, other.text);
    assert.deepEqual((await reader.get(`/incoming-invoices/${id}`)).body.data.bookings, bookings);
    // Still bounded, and the fields beside it still checked.
    expectProblem(await writer.patch(`/incoming-invoices/${id}`, { bookings: 'all' }), 422);
    expectProblem(await writer.patch(`/incoming-invoices/${id}`, { bookings, status: 'paid' }), 422);
  });

  it('bookings: PATCH and DELETE with both scopes; the sum may not exceed gross', async () => {
    const inv = await create({
      gross_total: 100,
      bookings: [
        { chart_of_account_id: chart.office, amount: 60 },
        { chart_of_account_id: chart.phone, amount: 30 },
      ],
    });
    const id = inv.body.data.id;
    const [b1, b2] = inv.body.data.bookings;
    const upd = await booker.patch(`/incoming-invoices/${id}/bookings/${b1.id}`, {
      amount: 70,
      cost_center: 'KST-7',
      chart_of_account_id: chart.books,
    });
    assert.equal(upd.status, 200, upd.text);
    assert.equal(upd.body.data.amount, 70);
    assert.equal(upd.body.data.cost_center, 'KST-7');
    assert.equal(upd.body.data.tax_rate, 7, 'takes the new account’s rate');
    const p = expectProblem(
      await booker.patch(`/incoming-invoices/${id}/bookings/${b1.id}`, { amount: 70.01 }),
      422,
    );
    assert.deepEqual(
      p.errors!.map((e) => e.field),
      ['amount'],
    );
    expectProblem(
      await booker.patch(`/incoming-invoices/${id}/bookings/${b1.id}`, {
        chart_of_account_id: chart.otherOffice,
      }),
      422,
      'invalid_reference',
    );
    const after = await reader.get(`/incoming-invoices/${id}`);
    assert.equal(after.body.data.bookings[0].amount, 70);
    assert.equal(after.body.data.bookings[0].chart_of_account_id, chart.books);
    const del = await booker.delete(`/incoming-invoices/${id}/bookings/${b2.id}`);
    assert.equal(del.status, 204);
    expectProblem(await booker.delete(`/incoming-invoices/${id}/bookings/${b2.id}`), 404);
    assert.equal((await reader.get(`/incoming-invoices/${id}`)).body.data.bookings.length, 1);
    // A booking of another document is not reachable through this one.
    const otherInv = await create({
      gross_total: 10,
      bookings: [{ chart_of_account_id: chart.office, amount: 5 }],
    });
    expectProblem(
      await booker.delete(`/incoming-invoices/${id}/bookings/${otherInv.body.data.bookings[0].id}`),
      404,
    );
    expectProblem(await other.delete(`/incoming-invoices/${id}/bookings/${b1.id}`), 404);
    expectProblem(await other.patch(`/incoming-invoices/${id}/bookings/${b1.id}`, { amount: 1 }), 404);
  });

  it('401 and 403 for every endpoint, booking endpoints need both scopes', async () => {
    const inv = await create({
      gross_total: 10,
      bookings: [{ chart_of_account_id: chart.office, amount: 5 }],
    });
    const id = inv.body.data.id;
    const bid = inv.body.data.bookings[0].id;
    const cases: [string, string, unknown, string[]][] = [
      ['GET', '/incoming-invoices', undefined, ['incoming-invoice:read']],
      ['POST', '/incoming-invoices', { gross_total: 1 }, ['incoming-invoice:write']],
      ['GET', `/incoming-invoices/${id}`, undefined, ['incoming-invoice:read']],
      ['PATCH', `/incoming-invoices/${id}`, { description: 'x' }, ['incoming-invoice:write']],
      ['POST', '/incoming-invoices/check-duplicate', { md5: 'a'.repeat(32) }, ['incoming-invoice:read']],
    ];
    for (const [method, path, body, scopes] of cases) {
      expectProblem(await ctx.anon.request(method as 'GET', path, body), 401, 'unauthorized');
      assert.deepEqual(
        expectProblem(await none.request(method as 'GET', path, body), 403).required_scopes,
        scopes,
      );
    }
    const onlyWrite = await ctx.as('incoming-invoice:write');
    const onlyChart = await ctx.as('chart-of-accounts:write');
    for (const [method, body] of [
      ['PATCH', { amount: 1 }],
      ['DELETE', undefined],
    ] as const) {
      const path = `/incoming-invoices/${id}/bookings/${bid}`;
      expectProblem(await ctx.anon.request(method, path, body), 401);
      for (const api of [onlyWrite, onlyChart, none]) {
        const p = expectProblem(await api.request(method, path, body), 403, 'insufficient_scope');
        assert.deepEqual(p.required_scopes, ['incoming-invoice:write', 'chart-of-accounts:write']);
      }
    }
    assert.equal((await reader.get(`/incoming-invoices/${id}`)).body.data.bookings[0].amount, 5);
  });

  it('404 for unknown ids and another account’s documents', async () => {
    const inv = await create({ gross_total: 1 });
    const id = inv.body.data.id;
    expectProblem(await other.get(`/incoming-invoices/${id}`), 404, 'not_found');
    expectProblem(await other.patch(`/incoming-invoices/${id}`, { description: 'x' }), 404);
    expectProblem(await reader.get('/incoming-invoices/999999'), 404);
    assert.equal((await reader.get(`/incoming-invoices/${id}`)).body.data.description, null);
  });

  it('422 on bad input writes nothing', async () => {
    const before = await countRows(ctx.db, 'incoming_invoices');
    const beforeB = await countRows(ctx.db, 'incoming_invoice_bookings');
    const p = expectProblem(
      await create({ document_type: 'Bill', gross_total: 1.001, date: '2026-13-01', currency: 'euro' }),
      422,
      'validation_failed',
    );
    assert.deepEqual(p.errors!.map((e) => e.field).sort(), [
      'currency',
      'date',
      'document_type',
      'gross_total',
    ]);
    const over = expectProblem(
      await create({
        gross_total: 100,
        bookings: [
          { chart_of_account_id: chart.office, amount: 60 },
          { chart_of_account_id: chart.phone, amount: 40.01 },
        ],
      }),
      422,
    );
    assert.deepEqual(
      over.errors!.map((e) => e.field),
      ['bookings'],
    );
    const ref = expectProblem(
      await create({ gross_total: 100, bookings: [{ chart_of_account_id: chart.otherOffice, amount: 1 }] }),
      422,
      'invalid_reference',
    );
    assert.deepEqual(
      ref.errors!.map((e) => e.field),
      ['bookings.0.chart_of_account_id'],
    );
    expectProblem(await create({ gross_total: 1, bookings: [{ amount: 1 }] }), 422, 'invalid_reference');
    expectProblem(await create({ supplier_id: 999999 }), 422, 'invalid_reference');
    expectProblem(await create({ net_total: 10, tax_total: 1, gross_total: 12 }), 422);
    assert.equal(await countRows(ctx.db, 'incoming_invoices'), before);
    assert.equal(await countRows(ctx.db, 'incoming_invoice_bookings'), beforeB);
  });
});
