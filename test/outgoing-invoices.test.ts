import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { importData } from '../src/import/index.js';
import { type Api, countRows, describeEachDb, expectProblem } from './helpers.js';
import { bookNow, line, makeClient, makeInvoice } from './invoicing.fixtures.js';

describeEachDb('outgoing invoices', (ctx) => {
  let writer: Api;
  let reader: Api;
  let booker: Api;
  let forcer: Api;
  let clientId: number;

  before(async () => {
    writer = await ctx.as('outgoing-invoice:write outgoing-invoice:read client:write');
    reader = await ctx.as('outgoing-invoice:read');
    booker = await ctx.as('outgoing-invoice:book');
    forcer = await ctx.as('outgoing-invoice:force-delete');
    clientId = await makeClient(writer, { currency: 'CHF', payment_term_days: 10 });
  });

  it('creates an open invoice: 201, Location, defaults from the client, totals and positions', async () => {
    const res = await writer.post('/outgoing-invoices', {
      client_id: clientId,
      title: 'March',
      date: '2026-03-01',
      service_period_start: '2026-02-01',
      service_period_end: '2026-02-28',
      line_items: [
        { title: 'Design', quantity: 1.5, unit: 'h', unit_price: 33.33, tax_rate: 19 },
        {
          title: 'Print',
          description: 'A5',
          quantity: 2,
          unit: 'pcs',
          unit_price: 10,
          tax_rate: 7,
          discount: 10,
        },
      ],
    });
    assert.equal(res.status, 201);
    const inv = res.body.data;
    assert.equal(res.headers.location, `/api/v1/outgoing-invoices/${inv.id}`);
    assert.equal(inv.type, 'invoice');
    assert.equal(inv.status, 'open');
    assert.equal(inv.invoice_number, null);
    assert.equal(inv.currency, 'CHF');
    assert.equal(inv.payment_term_days, 10);
    assert.equal(inv.due_date, '2026-03-11');
    assert.deepEqual(
      inv.line_items.map((l: any) => [
        l.position,
        l.title,
        l.quantity,
        l.unit,
        l.unit_price,
        l.tax_rate,
        l.discount,
        l.net_total,
      ]),
      [
        [1, 'Design', 1.5, 'h', 33.33, 19, null, 50],
        [2, 'Print', 2, 'pcs', 10, 7, 10, 18],
      ],
    );
    assert.equal(inv.line_items[1].description, 'A5');
    assert.equal(inv.net_total, 68);
    assert.deepEqual(inv.taxes, [
      { rate: 7, net: 18, tax: 1.26 },
      { rate: 19, net: 50, tax: 9.5 },
    ]);
    assert.equal(inv.tax_total, 10.76);
    assert.equal(inv.gross_total, 78.76);
    assert.equal(inv.paid_total, 0);
    assert.equal(inv.open_total, 78.76);
    assert.equal(inv.payment_status, 'unpaid');
    assert.deepEqual(inv.deductions, []);
    assert.equal(inv.plan_total, null);
    const read = await reader.get(`/outgoing-invoices/${inv.id}`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body.data, inv);
  });

  it('totals on tricky cases are exact and written with two decimals at most', async () => {
    const cases: { lines: any[]; net: number; tax: number; gross: number; taxes: any[]; type?: string }[] = [
      {
        lines: [line(33.33), line(33.33), line(33.33)],
        net: 99.99,
        tax: 19,
        gross: 118.99,
        taxes: [{ rate: 19, net: 99.99, tax: 19 }],
      },
      {
        lines: [line(100), line(50, { tax_rate: 7 }), line(0.1, { quantity: 3 })],
        net: 150.3,
        tax: 22.56,
        gross: 172.86,
        taxes: [
          { rate: 7, net: 50, tax: 3.5 },
          { rate: 19, net: 100.3, tax: 19.06 },
        ],
      },
      {
        type: 'credit',
        lines: [line(-100), line(-0.05, { quantity: 1.5 })],
        net: -100.08,
        tax: -19.02,
        gross: -119.1,
        taxes: [{ rate: 19, net: -100.08, tax: -19.02 }],
      },
      {
        lines: [
          line(95, { quantity: 7.25, unit: 'h', discount: 12.5 }),
          line(0.01, { quantity: 0.5, tax_rate: 0 }),
        ],
        net: 602.67,
        tax: 114.51,
        gross: 717.18,
        taxes: [
          { rate: 0, net: 0.01, tax: 0 },
          { rate: 19, net: 602.66, tax: 114.51 },
        ],
      },
    ];
    for (const c of cases) {
      const inv = await makeInvoice(writer, { client_id: clientId, type: c.type, line_items: c.lines });
      assert.deepEqual(
        [inv.net_total, inv.tax_total, inv.gross_total, inv.taxes],
        [c.net, c.tax, c.gross, c.taxes],
        JSON.stringify(c.lines),
      );
      const res = await reader.get(`/outgoing-invoices/${inv.id}`);
      assert.doesNotMatch(res.text, /[:,[]-?\d+\.\d{3,}[,}\]]/, 'no number with more than two decimals');
    }
  });

  it('creates a bookable credit; creation never books', async () => {
    // The number is given when booking, not on creation: an unknown field here.
    const numbered = expectProblem(
      await writer.post('/outgoing-invoices', { type: 'credit', invoice_number: 'X-1' }),
      422,
      'validation_failed',
    );
    assert.deepEqual(
      numbered.errors?.map((e) => e.field),
      ['invoice_number'],
    );
    const credit = await makeInvoice(writer, {
      type: 'credit',
      status: 'bookable',
      client_id: clientId,
      line_items: [line(-50)],
    });
    assert.equal(credit.type, 'credit');
    assert.equal(credit.status, 'bookable');
    assert.equal(credit.invoice_number, null);
    assert.equal(credit.booked_at, null);
    const refused = await writer.post('/outgoing-invoices', { status: 'booked', line_items: [] });
    assert.deepEqual(
      expectProblem(refused, 422, 'validation_failed').errors!.map((e) => e.field),
      ['status'],
    );
    expectProblem(await writer.post('/outgoing-invoices', { type: 'deposit' }), 422);
  });

  it('422 names every bad field and writes nothing', async () => {
    const invoices = await countRows(ctx.db, 'outgoing_invoices');
    const items = await countRows(ctx.db, 'outgoing_invoice_items');
    const bad = await writer.post('/outgoing-invoices', {
      client_id: clientId,
      line_items: [
        { title: 'ok', quantity: 1.23456, unit_price: 1.005, tax_rate: 19, discount: 2.555 },
        { title: '', quantity: 1, unit_price: 1, tax_rate: 101 },
      ],
    });
    const fields = expectProblem(bad, 422, 'validation_failed').errors!.map((e) => e.field);
    assert.deepEqual(fields.sort(), ['line_items.1.tax_rate', 'line_items.1.title']);
    const decimals = await writer.post('/outgoing-invoices', {
      client_id: clientId,
      line_items: [{ title: 'ok', quantity: 1.23456, unit_price: 1.005, tax_rate: 19.125, discount: 2.555 }],
    });
    assert.deepEqual(
      expectProblem(decimals, 422, 'validation_failed')
        .errors!.map((e) => e.field)
        .sort(),
      ['line_items.0.discount', 'line_items.0.quantity', 'line_items.0.tax_rate', 'line_items.0.unit_price'],
    );
    const refs = await writer.post('/outgoing-invoices', {
      client_id: 999999,
      contact_id: 999999,
      project_id: 999999,
      line_items: [line(1)],
    });
    assert.deepEqual(
      expectProblem(refs, 422, 'invalid_reference').errors!.map((e) => e.field),
      ['client_id', 'contact_id', 'project_id'],
    );
    const dates = await writer.post('/outgoing-invoices', {
      date: '2026-03-10',
      due_date: '2026-03-01',
      service_period_start: '2026-03-01',
      service_period_end: '2026-02-01',
    });
    assert.deepEqual(
      expectProblem(dates, 422)
        .errors!.map((e) => e.field)
        .sort(),
      ['due_date', 'service_period_end'],
    );
    expectProblem(await writer.post('/outgoing-invoices', { date: '2026-02-30' }), 422);
    expectProblem(
      await writer.post('/outgoing-invoices', { line_items: [{ ...line(1), quantity: '1' }] }),
      422,
    );
    const notCredit = await writer.post('/outgoing-invoices', { credited_invoice_id: 1 });
    assert.equal(expectProblem(notCredit, 422).errors![0]!.field, 'credited_invoice_id');
    assert.equal(await countRows(ctx.db, 'outgoing_invoices'), invoices);
    assert.equal(await countRows(ctx.db, 'outgoing_invoice_items'), items);
  });

  it('PATCH changes scalars and keeps line items unless the key is present, then replaces all', async () => {
    const inv = await makeInvoice(writer, { client_id: clientId, line_items: [line(10), line(20)] });
    const scalars = await writer.patch(`/outgoing-invoices/${inv.id}`, {
      title: 'Renamed',
      date: '2026-04-01',
      due_date: '2026-04-30',
      status: 'bookable',
    });
    assert.equal(scalars.status, 200);
    assert.equal(scalars.body.data.title, 'Renamed');
    assert.equal(scalars.body.data.status, 'bookable');
    assert.equal(scalars.body.data.due_date, '2026-04-30');
    assert.deepEqual(scalars.body.data.line_items, inv.line_items);
    const replaced = await writer.patch(`/outgoing-invoices/${inv.id}`, {
      line_items: [line(5, { title: 'Only' })],
      status: 'open',
    });
    assert.equal(replaced.body.data.status, 'open');
    assert.deepEqual(
      replaced.body.data.line_items.map((l: any) => [l.position, l.title, l.net_total]),
      [[1, 'Only', 5]],
    );
    assert.equal(replaced.body.data.gross_total, 5.95);
    const lines = await reader.get(`/outgoing-invoices/${inv.id}/line-items`);
    assert.equal(lines.body.meta.total, 1);
    const cleared = await writer.patch(`/outgoing-invoices/${inv.id}`, { line_items: [] });
    assert.deepEqual(cleared.body.data.line_items, []);
    assert.equal(cleared.body.data.gross_total, 0);
    expectProblem(await writer.patch(`/outgoing-invoices/${inv.id}`, { status: 'booked' }), 422);
    expectProblem(await writer.patch(`/outgoing-invoices/${inv.id}`, {}), 422);
    expectProblem(await writer.patch(`/outgoing-invoices/${inv.id}`, { plan_start: '2026-01-01' }), 422);
    expectProblem(await writer.patch(`/outgoing-invoices/${inv.id}`, { due_date: '2026-03-01' }), 422);
    expectProblem(
      await writer.patch(`/outgoing-invoices/${inv.id}`, { client_id: 999999 }),
      422,
      'invalid_reference',
    );
    expectProblem(
      await writer.patch(`/outgoing-invoices/${inv.id}`, { line_items: [{ ...line(1), quantity: 0.00001 }] }),
      422,
    );
    assert.equal((await reader.get(`/outgoing-invoices/${inv.id}`)).body.data.title, 'Renamed');
  });

  it('a booked invoice cannot be changed (409) or deleted (409 invoice_booked), only force-deleted', async () => {
    const inv = await makeInvoice(writer, { client_id: clientId, line_items: [line(10)] });
    const booked = await bookNow(await ctx.as('outgoing-invoice:book'), inv.id);
    const patch = await writer.patch(`/outgoing-invoices/${inv.id}`, { title: 'changed', line_items: [] });
    expectProblem(patch, 409, 'invoice_booked');
    expectProblem(await writer.delete(`/outgoing-invoices/${inv.id}`), 409, 'invoice_booked');
    const after = await reader.get(`/outgoing-invoices/${inv.id}`);
    assert.deepEqual(after.body.data, booked);
    expectProblem(await writer.delete(`/outgoing-invoices/${inv.id}/force`), 403, 'insufficient_scope');
    const forced = await forcer.delete(`/outgoing-invoices/${inv.id}/force`);
    assert.equal(forced.status, 204);
    // Still readable by id (nothing hidden from an auditor), marked deleted.
    const gone = (await reader.get(`/outgoing-invoices/${inv.id}`)).body.data;
    assert.ok(gone.deleted_at);
    assert.equal(gone.invoice_number, booked.invoice_number);
    const list = await reader.get(`/outgoing-invoices?status=booked&per_page=100`);
    assert.ok(!list.body.data.some((i: any) => i.id === inv.id));
    // The number of a deleted invoice stays taken.
    const other = await makeInvoice(writer, { client_id: clientId, line_items: [line(1)] });
    expectProblem(
      await booker.post(`/outgoing-invoices/${other.id}/book`, { invoice_number: booked.invoice_number }),
      409,
      'invoice_number_taken',
    );
  });

  it('DELETE soft-deletes an unbooked invoice: 204, then readable by id only, 404 for changes, out of lists; force works on open ones too', async () => {
    const a = await makeInvoice(writer, { client_id: clientId, line_items: [line(1)] });
    const b = await makeInvoice(writer, { client_id: clientId, status: 'bookable' });
    const del = await writer.delete(`/outgoing-invoices/${a.id}`);
    assert.equal(del.status, 204);
    assert.equal(del.text, '');
    assert.ok((await reader.get(`/outgoing-invoices/${a.id}`)).body.data.deleted_at);
    expectProblem(await writer.delete(`/outgoing-invoices/${a.id}`), 404);
    expectProblem(await writer.patch(`/outgoing-invoices/${a.id}`, { title: 'x' }), 404);
    expectProblem(await booker.post(`/outgoing-invoices/${a.id}/book`), 404);
    assert.equal((await forcer.delete(`/outgoing-invoices/${b.id}/force`)).status, 204);
    const ids = (await reader.get('/outgoing-invoices?per_page=100')).body.data.map((i: any) => i.id);
    assert.ok(!ids.includes(a.id) && !ids.includes(b.id));
    const row = await ctx.db
      .selectFrom('outgoing_invoices')
      .select('deleted_at')
      .where('id', '=', a.id)
      .executeTakeFirst();
    assert.ok(row?.deleted_at, 'the row is kept, marked deleted');
  });

  it('lists filter by status, type, client, project, date range and updated_since, with paging', async () => {
    const client2 = await makeClient(writer);
    await importData(
      ctx.db,
      {
        clients: [{ key: 'pc', name: 'Project client' }],
        projects: [{ key: 'p', client: 'pc', name: 'Listed project' }],
      },
      { accountId: ctx.account.accountId },
    );
    const project = (await ctx.db
      .selectFrom('projects')
      .select('id')
      .where('name', '=', 'Listed project')
      .executeTakeFirst())!;
    const start = new Date().toISOString();
    const a = await makeInvoice(writer, {
      client_id: client2,
      project_id: project.id,
      date: '2026-01-15',
      line_items: [line(1)],
    });
    const b = await makeInvoice(writer, {
      client_id: client2,
      type: 'credit',
      status: 'bookable',
      date: '2026-02-15',
    });
    const c = await makeInvoice(writer, { client_id: client2, date: '2026-03-15', line_items: [line(2)] });
    await bookNow(booker, c.id);
    const ids = async (query: string) =>
      (await reader.get(`/outgoing-invoices?client_id=${client2}&${query}`)).body.data.map((i: any) => i.id);
    assert.deepEqual(await ids(''), [a.id, b.id, c.id]);
    assert.deepEqual(await ids('status=open'), [a.id]);
    assert.deepEqual(await ids('status=bookable'), [b.id]);
    assert.deepEqual(await ids('status=booked'), [c.id]);
    assert.deepEqual(await ids('type=credit'), [b.id]);
    assert.deepEqual(await ids('type=invoice'), [a.id, c.id]);
    assert.deepEqual(await ids(`project_id=${project.id}`), [a.id]);
    assert.deepEqual(await ids('date_from=2026-02-01&date_to=2026-02-28'), [b.id]);
    assert.deepEqual(await ids('date_from=2026-02-15'), [b.id, c.id]);
    assert.deepEqual(await ids(`updated_since=${encodeURIComponent(start)}`), [a.id, b.id, c.id]);
    assert.deepEqual(await ids(`updated_since=2999-01-01T00:00:00Z`), []);
    const page = await reader.get(`/outgoing-invoices?client_id=${client2}&per_page=2&page=2`);
    assert.deepEqual(page.body.meta, { page: 2, per_page: 2, total: 3 });
    assert.match(String(page.headers.link), /rel="prev"/);
    assert.equal(page.body.data[0].id, c.id);
    assert.equal(page.body.data[0].gross_total, 2.38, 'lists carry totals too');
    expectProblem(await reader.get('/outgoing-invoices?status=deleted'), 422);
    expectProblem(await reader.get('/outgoing-invoices?date_from=yesterday'), 422);
  });

  it('GET …/line-items returns the positions in order, paged', async () => {
    const inv = await makeInvoice(writer, {
      client_id: clientId,
      line_items: [line(1, { title: 'A' }), line(2, { title: 'B' }), line(3, { title: 'C' })],
    });
    const res = await reader.get(`/outgoing-invoices/${inv.id}/line-items`);
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.data.map((l: any) => [l.position, l.title]),
      [
        [1, 'A'],
        [2, 'B'],
        [3, 'C'],
      ],
    );
    assert.deepEqual(res.body.data, inv.line_items);
    const p2 = await reader.get(`/outgoing-invoices/${inv.id}/line-items?per_page=2&page=2`);
    assert.deepEqual(
      p2.body.data.map((l: any) => l.title),
      ['C'],
    );
  });

  it('every endpoint: 401 without a token, 403 naming the missing scope', async () => {
    const inv = await makeInvoice(writer, { client_id: clientId, line_items: [line(1)] });
    const endpoints: [string, string, string[], unknown?][] = [
      ['GET', '/outgoing-invoices', ['outgoing-invoice:read']],
      ['POST', '/outgoing-invoices', ['outgoing-invoice:write'], {}],
      ['GET', '/outgoing-invoices/master', ['outgoing-invoice:read']],
      ['GET', `/outgoing-invoices/master/${inv.id}`, ['outgoing-invoice:read']],
      ['GET', `/outgoing-invoices/${inv.id}`, ['outgoing-invoice:read']],
      ['PATCH', `/outgoing-invoices/${inv.id}`, ['outgoing-invoice:write'], { title: 'x' }],
      ['DELETE', `/outgoing-invoices/${inv.id}`, ['outgoing-invoice:write']],
      ['GET', `/outgoing-invoices/${inv.id}/line-items`, ['outgoing-invoice:read']],
      ['POST', '/outgoing-invoices/external', ['outgoing-invoice:upload'], {}],
      ['POST', '/outgoing-invoices/recurring-plans', ['outgoing-invoice:write'], {}],
      ['POST', '/outgoing-invoices/partial-plans', ['outgoing-invoice:write'], {}],
      ['POST', `/outgoing-invoices/${inv.id}/plan-invoices`, ['outgoing-invoice:write'], {}],
      ['POST', `/outgoing-invoices/${inv.id}/generate`, ['outgoing-invoice:write'], {}],
      ['POST', `/outgoing-invoices/${inv.id}/book`, ['outgoing-invoice:book'], {}],
      ['DELETE', `/outgoing-invoices/${inv.id}/force`, ['outgoing-invoice:force-delete']],
      ['GET', `/outgoing-invoices/${inv.id}/pdf`, ['outgoing-invoice:read']],
    ];
    const unrelated = await ctx.as('client:read offer:read payments:write');
    for (const [method, path, scopes, body] of endpoints) {
      const anon = await ctx.anon.request(method as 'GET', path, body);
      expectProblem(anon, 401, 'unauthorized');
      const denied = await unrelated.request(method as 'GET', path, body);
      assert.deepEqual(
        expectProblem(denied, 403, 'insufficient_scope').required_scopes,
        scopes,
        `${method} ${path}`,
      );
    }
    // write does not imply read, nor book, nor force-delete
    const onlyWrite = await ctx.as('outgoing-invoice:write');
    expectProblem(await onlyWrite.get(`/outgoing-invoices/${inv.id}`), 403);
    expectProblem(await onlyWrite.post(`/outgoing-invoices/${inv.id}/book`), 403);
    assert.equal((await reader.get(`/outgoing-invoices/${inv.id}`)).body.data.status, 'open');
  });

  it('another account’s invoice is a 404 on every endpoint', async () => {
    const inv = await makeInvoice(writer, { client_id: clientId, line_items: [line(1)] });
    const stranger = await ctx.as(
      'outgoing-invoice:read outgoing-invoice:write outgoing-invoice:book outgoing-invoice:force-delete',
      { accountId: ctx.other.accountId },
    );
    expectProblem(await stranger.get(`/outgoing-invoices/${inv.id}`), 404, 'not_found');
    expectProblem(await stranger.get(`/outgoing-invoices/${inv.id}/line-items`), 404);
    expectProblem(await stranger.get(`/outgoing-invoices/${inv.id}/pdf`), 404);
    expectProblem(await stranger.patch(`/outgoing-invoices/${inv.id}`, { title: 'stolen' }), 404);
    expectProblem(await stranger.post(`/outgoing-invoices/${inv.id}/book`), 404);
    expectProblem(await stranger.delete(`/outgoing-invoices/${inv.id}`), 404);
    expectProblem(await stranger.delete(`/outgoing-invoices/${inv.id}/force`), 404);
    expectProblem(await stranger.post(`/outgoing-invoices/${inv.id}/generate`), 404);
    expectProblem(
      await stranger.post(`/outgoing-invoices/${inv.id}/plan-invoices`, { type: 'deposit', value: 1 }),
      404,
    );
    expectProblem(
      await stranger.post('/outgoing-invoices', { client_id: clientId }),
      422,
      'invalid_reference',
    );
    const list = await stranger.get('/outgoing-invoices?per_page=100');
    assert.ok(!list.body.data.some((i: any) => i.id === inv.id));
    expectProblem(await reader.get('/outgoing-invoices/999999'), 404);
    expectProblem(await reader.get('/outgoing-invoices/abc'), 422);
    const mine = await reader.get(`/outgoing-invoices/${inv.id}`);
    assert.equal(mine.body.data.status, 'open');
    assert.equal(mine.body.data.title, null);
  });
});
