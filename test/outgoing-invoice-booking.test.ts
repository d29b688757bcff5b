import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { type Api, countRows, describeEachDb, expectProblem, multipart } from './helpers.js';
import { bookNow, freshAccount, line, makeClient, makeInvoice, thisYear } from './invoicing.fixtures.js';

const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

describeEachDb('outgoing invoice booking and numbering', (ctx) => {
  let api: Api;
  let clientId: number;
  const Y = thisYear();

  before(async () => {
    ({ api } = await freshAccount(ctx));
    clientId = await makeClient(api, { payment_term_days: 14 });
  });

  it('automatic mode: consecutive numbers per kind, credits in their own sequence; date and due date fixed', async () => {
    const a = await makeInvoice(api, { client_id: clientId, line_items: [line(100)] });
    const booked = await api.post(`/outgoing-invoices/${a.id}/book`);
    assert.equal(booked.status, 200);
    const d = booked.body.data;
    assert.equal(d.status, 'booked');
    assert.equal(d.invoice_number, `RE-${Y}-00001`);
    assert.equal(d.date, new Date().toISOString().slice(0, 10));
    assert.ok(d.booked_at);
    assert.equal(d.due_date, new Date(Date.now() + 14 * 86400000).toISOString().slice(0, 10));
    const credit = await makeInvoice(api, { type: 'credit', client_id: clientId, line_items: [line(-10)] });
    assert.equal((await bookNow(api, credit.id)).invoice_number, `GS-${Y}-00001`);
    const b = await makeInvoice(api, { client_id: clientId, status: 'bookable', line_items: [line(1)] });
    const draft = await ctx.db
      .selectFrom('outgoing_invoices')
      .select('document')
      .where('id', '=', b.id)
      .executeTakeFirst();
    assert.equal(draft!.document, null);
    assert.equal((await bookNow(api, b.id)).invoice_number, `RE-${Y}-00002`);
    assert.deepEqual(
      (await api.get(`/outgoing-invoices/${a.id}`)).body.data,
      d,
      'reads show the booked document',
    );
    // Booking froze what the document prints: number, dates, recipient, totals.
    const row = await ctx.db
      .selectFrom('outgoing_invoices')
      .select('document')
      .where('id', '=', a.id)
      .executeTakeFirst();
    const doc = JSON.parse(row!.document!);
    const clientName = (await ctx.db
      .selectFrom('clients')
      .select('name')
      .where('id', '=', clientId)
      .executeTakeFirst())!.name;
    assert.deepEqual(
      [doc.number, doc.date, doc.due_date, doc.booked, doc.gross_total, doc.buyer.name],
      [d.invoice_number, d.date, d.due_date, true, '119.00', clientName],
    );
  });

  it('a set invoice date is kept and picks the counter of its year', async () => {
    const old = await makeInvoice(api, {
      client_id: clientId,
      date: '2025-12-30',
      due_date: '2026-01-15',
      line_items: [line(1)],
    });
    const booked = await bookNow(api, old.id);
    assert.equal(booked.invoice_number, 'RE-2025-00001');
    assert.equal(booked.date, '2025-12-30');
    assert.equal(booked.due_date, '2026-01-15');
  });

  it('a failed booking consumes no number and changes nothing (422 without lines or client)', async () => {
    const empty = await makeInvoice(api, { client_id: clientId });
    const noLines = await api.post(`/outgoing-invoices/${empty.id}/book`);
    assert.deepEqual(
      expectProblem(noLines, 422, 'validation_failed').errors!.map((e) => e.field),
      ['line_items'],
    );
    const orphan = await makeInvoice(api, { line_items: [line(1)] });
    assert.deepEqual(
      expectProblem(await api.post(`/outgoing-invoices/${orphan.id}/book`), 422).errors!.map((e) => e.field),
      ['client_id'],
    );
    const positiveCredit = await makeInvoice(api, {
      type: 'credit',
      client_id: clientId,
      line_items: [line(5)],
    });
    expectProblem(await api.post(`/outgoing-invoices/${positiveCredit.id}/book`), 422);
    const after = (await api.get(`/outgoing-invoices/${empty.id}`)).body.data;
    assert.equal(after.status, 'open');
    assert.equal(after.invoice_number, null);
    assert.equal(after.date, null);
    const next = await makeInvoice(api, { client_id: clientId, line_items: [line(1)] });
    assert.equal((await bookNow(api, next.id)).invoice_number, `RE-${Y}-00003`);
  });

  it('booking twice is 409 already_booked; a plan master cannot be booked', async () => {
    const inv = await makeInvoice(api, { client_id: clientId, line_items: [line(1)] });
    const first = await bookNow(api, inv.id);
    expectProblem(await api.post(`/outgoing-invoices/${inv.id}/book`), 409, 'already_booked');
    expectProblem(
      await api.post(`/outgoing-invoices/${inv.id}/book`, { invoice_number: 'M-1' }),
      409,
      'already_booked',
    );
    assert.equal(
      (await api.get(`/outgoing-invoices/${inv.id}`)).body.data.invoice_number,
      first.invoice_number,
    );
    const plan = await api.post('/outgoing-invoices/recurring-plans', {
      type: 'recurring1',
      client_id: clientId,
      plan_start: '2026-01-01',
      plan_end: '2026-03-01',
      line_items: [line(1)],
    });
    expectProblem(await api.post(`/outgoing-invoices/${plan.body.data.id}/book`), 422, 'unprocessable');
  });

  it('manual mode uses the number as given; a taken number is 409; automatic numbering skips it', async () => {
    const { api: own } = await freshAccount(ctx);
    const client = await makeClient(own);
    const manual = await makeInvoice(own, { client_id: client, line_items: [line(1)] });
    const res = await own.post(`/outgoing-invoices/${manual.id}/book`, { invoice_number: `RE-${Y}-00002` });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.invoice_number, `RE-${Y}-00002`);
    const dup = await makeInvoice(own, { client_id: client, line_items: [line(1)] });
    const taken = await own.post(`/outgoing-invoices/${dup.id}/book`, { invoice_number: `RE-${Y}-00002` });
    assert.deepEqual(expectProblem(taken, 409, 'invoice_number_taken').errors, [
      { field: 'invoice_number', message: 'is already taken' },
    ]);
    assert.equal((await own.get(`/outgoing-invoices/${dup.id}`)).body.data.status, 'open');
    const numbers = [];
    for (let i = 0; i < 3; i++) {
      const inv = await makeInvoice(own, { client_id: client, line_items: [line(1)] });
      numbers.push((await bookNow(own, inv.id)).invoice_number);
    }
    assert.deepEqual(numbers, [`RE-${Y}-00001`, `RE-${Y}-00003`, `RE-${Y}-00004`]);
    // Numbers are per account: the other account may use the same one.
    const mine = await makeInvoice(own, { client_id: client, line_items: [line(1)] });
    await bookNow(own, mine.id, { invoice_number: 'SHARED-1' });
    const otherInvoice = await makeInvoice(api, { client_id: clientId, line_items: [line(1)] });
    assert.equal(
      (await bookNow(api, otherInvoice.id, { invoice_number: 'SHARED-1' })).invoice_number,
      'SHARED-1',
    );
    expectProblem(await own.post(`/outgoing-invoices/${dup.id}/book`, { invoice_number: '' }), 422);
    expectProblem(await own.post(`/outgoing-invoices/${dup.id}/book`, { invoice_number: ' padded ' }), 422);
  });

  it('number formats come from the account settings', async () => {
    const { api: custom } = await freshAccount(ctx, {
      invoice_number_format: 'INV{YY}-{NNN}',
      credit_number_format: 'CN{NNNN}',
    });
    const client = await makeClient(custom);
    const inv = await makeInvoice(custom, { client_id: client, date: '2027-05-01', line_items: [line(1)] });
    assert.equal((await bookNow(custom, inv.id)).invoice_number, 'INV27-001');
    const credit = await makeInvoice(custom, { type: 'credit', client_id: client, line_items: [line(-1)] });
    assert.equal((await bookNow(custom, credit.id)).invoice_number, 'CN0001');
    const { api: broken } = await freshAccount(ctx, { invoice_number_format: 'NO-COUNTER' });
    const bad = await makeInvoice(broken, { client_id: await makeClient(broken), line_items: [line(1)] });
    expectProblem(await broken.post(`/outgoing-invoices/${bad.id}/book`), 422, 'unprocessable');
    assert.equal((await countRows(ctx.db, 'invoice_number_counters')) > 0, true);
  });

  it('50 concurrent bookings get 50 consecutive numbers', async () => {
    const { api: race } = await freshAccount(ctx);
    const client = await makeClient(race);
    const ids: number[] = [];
    for (let i = 0; i < 50; i++)
      ids.push((await makeInvoice(race, { client_id: client, line_items: [line(1)] })).id);
    const results = await Promise.all(
      ids.map((id) =>
        ctx.app.inject({
          method: 'POST',
          url: `/api/v1/outgoing-invoices/${id}/book`,
          headers: { authorization: `Bearer ${race.token}` },
          payload: {},
        }),
      ),
    );
    assert.deepEqual(
      results.map((r) => r.statusCode),
      ids.map(() => 200),
    );
    const numbers = results.map((r) => JSON.parse(r.body).data.invoice_number as string).sort();
    assert.deepEqual(
      numbers,
      ids.map((_, i) => `RE-${Y}-${String(i + 1).padStart(5, '0')}`),
    );
    // And the same invoice booked 10 times at once is booked exactly once.
    const one = await makeInvoice(race, { client_id: client, line_items: [line(1)] });
    const again = await Promise.all(
      Array.from({ length: 10 }, () =>
        ctx.app.inject({
          method: 'POST',
          url: `/api/v1/outgoing-invoices/${one.id}/book`,
          headers: { authorization: `Bearer ${race.token}` },
          payload: {},
        }),
      ),
    );
    assert.deepEqual(again.map((r) => r.statusCode).sort(), [200, ...Array(9).fill(409)]);
    assert.equal((await race.get(`/outgoing-invoices/${one.id}`)).body.data.invoice_number, `RE-${Y}-00051`);
  });

  it('concurrent manual bookings of one number: exactly one wins, the rest are 409', async () => {
    const { api: race } = await freshAccount(ctx);
    const client = await makeClient(race);
    const ids: number[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await makeInvoice(race, { client_id: client, line_items: [line(1)] })).id);
    const results = await Promise.all(
      ids.map((id) =>
        ctx.app.inject({
          method: 'POST',
          url: `/api/v1/outgoing-invoices/${id}/book`,
          headers: { authorization: `Bearer ${race.token}` },
          payload: { invoice_number: 'SAME-1' },
        }),
      ),
    );
    assert.deepEqual(results.map((r) => r.statusCode).sort(), [200, 409, 409, 409, 409]);
    for (const r of results.filter((x) => x.statusCode === 409)) {
      assert.equal(JSON.parse(r.body).code, 'invoice_number_taken');
    }
  });

  it('external invoices: stored booked with the caller’s number and PDF, sequence untouched', async () => {
    const { api: ext } = await freshAccount(ctx);
    const client = await makeClient(ext);
    const data = {
      invoice_number: 'LEGACY-2019-7',
      client_id: client,
      date: '2019-06-30',
      title: 'Old system',
      line_items: [line(100), line(50, { tax_rate: 7 })],
    };
    const form = await multipart(
      { name: 'legacy.pdf', type: 'application/pdf', data: PDF },
      { data: JSON.stringify(data) },
    );
    const res = await ext.request('POST', '/outgoing-invoices/external', form.body, form.headers);
    assert.equal(res.status, 201, res.text);
    const inv = res.body.data;
    assert.equal(res.headers.location, `/api/v1/outgoing-invoices/${inv.id}`);
    assert.equal(inv.status, 'booked');
    assert.equal(inv.external, true);
    assert.equal(inv.invoice_number, 'LEGACY-2019-7');
    assert.equal(inv.date, '2019-06-30');
    assert.equal(inv.gross_total, 172.5);
    assert.ok(inv.booked_at);
    const file = await ext.get(`/files/${inv.file_id}`);
    assert.equal(file.body.data.owner_type, 'outgoing_invoice');
    assert.equal(file.body.data.owner_id, inv.id);
    const pdf = await ctx.app.inject({
      url: `/api/v1/outgoing-invoices/${inv.id}/pdf`,
      headers: { authorization: `Bearer ${ext.token}` },
    });
    assert.equal(pdf.statusCode, 200);
    assert.equal(pdf.headers['content-type'], 'application/pdf');
    assert.deepEqual(pdf.rawPayload, PDF);
    expectProblem(await ext.patch(`/outgoing-invoices/${inv.id}`, { title: 'x' }), 409, 'invoice_booked');
    // The own sequence did not move.
    const own = await makeInvoice(ext, { client_id: client, line_items: [line(1)] });
    assert.equal((await bookNow(ext, own.id)).invoice_number, `RE-${Y}-00001`);
    // A number the service would give next is skipped once an upload holds it.
    const clash = await multipart(
      { name: 'x.pdf', type: 'application/pdf', data: PDF },
      { data: JSON.stringify({ ...data, invoice_number: `RE-${Y}-00002` }) },
    );
    assert.equal(
      (await ext.request('POST', '/outgoing-invoices/external', clash.body, clash.headers)).status,
      201,
    );
    const next = await makeInvoice(ext, { client_id: client, line_items: [line(1)] });
    assert.equal((await bookNow(ext, next.id)).invoice_number, `RE-${Y}-00003`);
  });

  it('external invoices: taken numbers 409, bad data 422 by field, wrong file type 415; nothing stored', async () => {
    const client = await makeClient(api);
    const files = await countRows(ctx.db, 'files');
    const invoices = await countRows(ctx.db, 'outgoing_invoices');
    const send = async (
      data: unknown,
      file: { name: string; type: string; data: Buffer } | null = {
        name: 'a.pdf',
        type: 'application/pdf',
        data: PDF,
      },
    ) => {
      const form = await multipart(
        file,
        data === undefined ? {} : { data: typeof data === 'string' ? data : JSON.stringify(data) },
      );
      return api.request('POST', '/outgoing-invoices/external', form.body, form.headers);
    };
    const valid = {
      invoice_number: `RE-${Y}-00001`,
      client_id: client,
      date: '2026-01-01',
      line_items: [line(1)],
    };
    expectProblem(await send(valid), 409, 'invoice_number_taken');
    const bad = await send({ client_id: 999999, date: 'soon', line_items: [] });
    assert.deepEqual(
      expectProblem(bad, 422, 'validation_failed')
        .errors!.map((e) => e.field)
        .sort(),
      ['data.date', 'data.invoice_number', 'data.line_items'],
    );
    assert.deepEqual(
      expectProblem(
        await send({ ...valid, invoice_number: 'NEW-1', client_id: 999999 }),
        422,
        'invalid_reference',
      ).errors!.map((e) => e.field),
      ['data.client_id'],
    );
    const decimals = await send({ ...valid, invoice_number: 'NEW-1', line_items: [line(1.001)] });
    assert.deepEqual(
      expectProblem(decimals, 422).errors!.map((e) => e.field),
      ['data.line_items.0.unit_price'],
    );
    assert.equal(expectProblem(await send('{not json'), 422).errors![0]!.field, 'data');
    assert.equal(expectProblem(await send(undefined), 422).errors![0]!.field, 'data');
    assert.equal(
      expectProblem(await send({ ...valid, invoice_number: 'NEW-1' }, null), 422).errors![0]!.field,
      'file',
    );
    expectProblem(
      await send({ ...valid, invoice_number: 'NEW-1' }, { name: 'a.png', type: 'image/png', data: PDF }),
      415,
    );
    expectProblem(await api.post('/outgoing-invoices/external', valid), 415);
    const writer = await ctx.as('outgoing-invoice:write outgoing-invoice:read');
    const form = await multipart(
      { name: 'a.pdf', type: 'application/pdf', data: PDF },
      { data: JSON.stringify(valid) },
    );
    expectProblem(await writer.request('POST', '/outgoing-invoices/external', form.body, form.headers), 403);
    assert.equal(await countRows(ctx.db, 'files'), files);
    assert.equal(await countRows(ctx.db, 'outgoing_invoices'), invoices);
  });
});
