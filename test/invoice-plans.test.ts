import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { type Api, countRows, describeEachDb, expectProblem } from './helpers.js';
import { bookNow, line, makeClient, makeInvoice } from './invoicing.fixtures.js';

describeEachDb('invoice plans', (ctx) => {
  let api: Api;
  let reader: Api;
  let clientId: number;

  before(async () => {
    api = await ctx.as('outgoing-invoice:read outgoing-invoice:write outgoing-invoice:book client:write');
    reader = await ctx.as('outgoing-invoice:read');
    clientId = await makeClient(api, { payment_term_days: 7 });
  });

  const recurring = (body: Record<string, unknown> = {}) =>
    api.post('/outgoing-invoices/recurring-plans', {
      type: 'recurring1',
      client_id: clientId,
      title: 'Hosting',
      plan_start: '2026-01-31',
      plan_end: '2026-05-31',
      line_items: [line(49.9, { title: 'Hosting', unit: 'month' })],
      ...body,
    });

  it('creates a recurring master without children; lists and shows masters', async () => {
    const res = await recurring();
    assert.equal(res.status, 201);
    const m = res.body.data;
    assert.equal(res.headers.location, `/api/v1/outgoing-invoices/master/${m.id}`);
    assert.equal(m.type, 'recurring1');
    assert.equal(m.plan_start, '2026-01-31');
    assert.equal(m.plan_end, '2026-05-31');
    assert.equal(m.payment_term_days, 7);
    assert.deepEqual(m.children, []);
    assert.equal(m.gross_total, 59.38);
    assert.equal(m.line_items[0].title, 'Hosting');
    assert.deepEqual((await reader.get(`/outgoing-invoices/master/${m.id}`)).body.data, m);
    const list = await reader.get('/outgoing-invoices/master?type=recurring1&per_page=100');
    assert.ok(list.body.data.some((x: any) => x.id === m.id));
    const partialOnly = await reader.get('/outgoing-invoices/master?type=partial_plan&per_page=100');
    assert.ok(!partialOnly.body.data.some((x: any) => x.id === m.id));
    // Masters are not documents: the invoice list leaves them out unless asked by type.
    const docs = await reader.get(`/outgoing-invoices?client_id=${clientId}&per_page=100`);
    assert.ok(!docs.body.data.some((x: any) => x.id === m.id));
    const byType = await reader.get('/outgoing-invoices?type=recurring1&per_page=100');
    assert.ok(byType.body.data.some((x: any) => x.id === m.id));
    const plainInvoice = await makeInvoice(api, { client_id: clientId });
    expectProblem(await reader.get(`/outgoing-invoices/master/${plainInvoice.id}`), 404);
  });

  it('generate: one open child per interval, month ends anchored on the plan start', async () => {
    const m = (await recurring()).body.data;
    const res = await api.post(`/outgoing-invoices/${m.id}/generate`);
    assert.equal(res.status, 200);
    const kids = res.body.data.children;
    assert.deepEqual(
      kids.map((k: any) => [k.date, k.service_period_start, k.service_period_end, k.status, k.type]),
      [
        ['2026-01-31', '2026-01-31', '2026-02-27', 'open', 'invoice'],
        ['2026-02-28', '2026-02-28', '2026-03-30', 'open', 'invoice'],
        ['2026-03-31', '2026-03-31', '2026-04-29', 'open', 'invoice'],
        ['2026-04-30', '2026-04-30', '2026-05-30', 'open', 'invoice'],
        ['2026-05-31', '2026-05-31', '2026-06-29', 'open', 'invoice'],
      ],
    );
    const child = (await reader.get(`/outgoing-invoices/${kids[1].id}`)).body.data;
    assert.equal(child.master_id, m.id);
    assert.equal(child.client_id, clientId);
    assert.equal(child.title, 'Hosting');
    assert.equal(child.due_date, '2026-03-07');
    assert.equal(child.gross_total, 59.38);
    assert.deepEqual(
      child.line_items.map((l: any) => [l.title, l.unit_price]),
      [['Hosting', 49.9]],
    );
    const filtered = await reader.get(`/outgoing-invoices?master_id=${m.id}`);
    assert.equal(filtered.body.meta.total, 5);
  });

  it('regenerating updates open children from the master’s current lines, keeps booked and bookable ones, never duplicates', async () => {
    const m = (await recurring({ plan_start: '2026-01-01', plan_end: '2026-04-30' })).body.data;
    const first = (await api.post(`/outgoing-invoices/${m.id}/generate`)).body.data.children;
    assert.equal(first.length, 4);
    const booked = await bookNow(api, first[0].id);
    await api.patch(`/outgoing-invoices/${first[1].id}`, { status: 'bookable' });
    const patched = await api.patch(`/outgoing-invoices/${m.id}`, {
      line_items: [line(59.9, { title: 'Hosting XL' })],
      title: 'Hosting XL',
    });
    assert.equal(patched.status, 200);
    const second = (await api.post(`/outgoing-invoices/${m.id}/generate`)).body.data.children;
    assert.deepEqual(
      second.map((k: any) => k.id),
      first.map((k: any) => k.id),
      'same children, no new ones',
    );
    const read = async (id: number) => (await reader.get(`/outgoing-invoices/${id}`)).body.data;
    const [c0, c1, c2, c3] = await Promise.all(second.map((k: any) => read(k.id)));
    assert.deepEqual(c0, booked, 'the booked child is untouched');
    assert.equal(c1.line_items[0].title, 'Hosting', 'bookable child keeps its lines');
    for (const c of [c2, c3]) {
      assert.equal(c.line_items[0].title, 'Hosting XL');
      assert.equal(c.title, 'Hosting XL');
      assert.equal(c.net_total, 59.9);
    }
    // A shorter span deletes open children beyond it; booked ones stay.
    await api.patch(`/outgoing-invoices/${m.id}`, { plan_end: '2026-02-15' });
    const third = (await api.post(`/outgoing-invoices/${m.id}/generate`)).body.data.children;
    assert.deepEqual(
      third.map((k: any) => k.id),
      [first[0].id, first[1].id],
    );
    // Extending again recreates periods whose child was deleted? No: a period keeps its first child.
    await api.patch(`/outgoing-invoices/${m.id}`, { plan_end: '2026-05-31' });
    const fourth = (await api.post(`/outgoing-invoices/${m.id}/generate`)).body.data.children;
    assert.deepEqual(
      fourth.map((k: any) => k.service_period_start),
      ['2026-01-01', '2026-02-01', '2026-05-01'],
    );
  });

  it('children inherit the plan’s buyer reference and 0 % VAT reason', async () => {
    const m = (await recurring({ plan_end: '2026-02-28' })).body.data;
    const legal = {
      buyer_reference: '991-01234-56',
      tax_exemption_category: 'E',
      tax_exemption_reason: 'Kleinunternehmer gemäß § 19 UStG',
    };
    const patched = await api.patch(`/outgoing-invoices/${m.id}`, legal);
    assert.equal(patched.status, 200, patched.text);
    const kids = (await api.post(`/outgoing-invoices/${m.id}/generate`)).body.data.children;
    assert.ok(kids.length > 0);
    for (const kid of kids) {
      const child = (await reader.get(`/outgoing-invoices/${kid.id}`)).body.data;
      assert.equal(child.buyer_reference, legal.buyer_reference);
      assert.equal(child.tax_exemption_category, legal.tax_exemption_category);
      assert.equal(child.tax_exemption_reason, legal.tax_exemption_reason);
    }
  });

  it('yearly plans over leap years and quarterly plans', async () => {
    const yearly = (
      await recurring({ type: 'recurring12', plan_start: '2028-02-29', plan_end: '2032-02-29' })
    ).body.data;
    const kids = (await api.post(`/outgoing-invoices/${yearly.id}/generate`)).body.data.children;
    assert.deepEqual(
      kids.map((k: any) => [k.service_period_start, k.service_period_end]),
      [
        ['2028-02-29', '2029-02-27'],
        ['2029-02-28', '2030-02-27'],
        ['2030-02-28', '2031-02-27'],
        ['2031-02-28', '2032-02-28'],
        ['2032-02-29', '2033-02-27'],
      ],
    );
    const quarterly = (
      await recurring({ type: 'recurring3', plan_start: '2026-01-15', plan_end: '2026-12-31' })
    ).body.data;
    const q = (await api.post(`/outgoing-invoices/${quarterly.id}/generate`)).body.data.children;
    assert.deepEqual(
      q.map((k: any) => k.date),
      ['2026-01-15', '2026-04-15', '2026-07-15', '2026-10-15'],
    );
    const half = (await recurring({ type: 'recurring6', plan_start: '2026-08-31', plan_end: '2027-08-31' }))
      .body.data;
    const h = (await api.post(`/outgoing-invoices/${half.id}/generate`)).body.data.children;
    assert.deepEqual(
      h.map((k: any) => k.date),
      ['2026-08-31', '2027-02-28', '2027-08-31'],
    );
  });

  it('recurring plans: 422 on bad input (fields named, nothing written), generate only on recurring masters', async () => {
    const before = await countRows(ctx.db, 'outgoing_invoices');
    const bad = await api.post('/outgoing-invoices/recurring-plans', {
      type: 'recurring2',
      client_id: clientId,
      plan_start: '2026-01-01',
      line_items: [],
    });
    assert.deepEqual(
      expectProblem(bad, 422)
        .errors!.map((e) => e.field)
        .sort(),
      ['line_items', 'plan_end', 'type'],
    );
    const backwards = await recurring({ plan_start: '2026-05-01', plan_end: '2026-01-01' });
    assert.deepEqual(
      expectProblem(backwards, 422).errors!.map((e) => e.field),
      ['plan_end'],
    );
    expectProblem(await recurring({ plan_end: '2299-01-01' }), 422);
    expectProblem(await recurring({ client_id: 999999 }), 422, 'invalid_reference');
    assert.equal(await countRows(ctx.db, 'outgoing_invoices'), before);
    const inv = await makeInvoice(api, { client_id: clientId });
    expectProblem(await api.post(`/outgoing-invoices/${inv.id}/generate`), 422, 'unprocessable');
    expectProblem(await api.post('/outgoing-invoices/999999/generate'), 404);
    const m = (await recurring()).body.data;
    expectProblem(await api.patch(`/outgoing-invoices/${m.id}`, { plan_end: '2025-01-01' }), 422);
    expectProblem(await api.patch(`/outgoing-invoices/${m.id}`, { date: '2025-01-01' }), 422);
    expectProblem(
      await api.post(`/outgoing-invoices/${m.id}/plan-invoices`, { type: 'deposit', value: 1 }),
      422,
    );
  });

  const partialPlan = async () => {
    const res = await api.post('/outgoing-invoices/partial-plans', {
      client_id: clientId,
      title: 'Relaunch',
      line_items: [line(10000, { title: 'Website' }), line(2000, { title: 'Print', tax_rate: 7 })],
    });
    assert.equal(res.status, 201, res.text);
    return res.body.data;
  };

  it('creates a partial plan and its final invoice in one call; the positions attach to the final', async () => {
    const plan = await partialPlan();
    assert.equal(plan.type, 'partial_plan');
    assert.equal(plan.children.length, 1);
    assert.equal(plan.children[0].type, 'final');
    assert.equal(plan.final_invoice_id, plan.children[0].id);
    assert.equal(plan.net_total, 12000);
    assert.equal(plan.gross_total, 14040);
    assert.equal(plan.remaining_gross_total, 14040);
    const final = (await reader.get(`/outgoing-invoices/${plan.final_invoice_id}`)).body.data;
    assert.equal(final.master_id, plan.id);
    assert.deepEqual(
      final.line_items.map((l: any) => l.title),
      ['Website', 'Print'],
    );
    assert.equal(final.gross_total, 14040);
    assert.deepEqual(final.plan_total.taxes, final.taxes);
    assert.deepEqual(final.deductions, []);
    const before = await countRows(ctx.db, 'outgoing_invoices');
    const bad = await api.post('/outgoing-invoices/partial-plans', { client_id: clientId, line_items: [] });
    assert.deepEqual(
      expectProblem(bad, 422).errors!.map((e) => e.field),
      ['line_items'],
    );
    expectProblem(
      await api.post('/outgoing-invoices/partial-plans', { client_id: 999999, line_items: [line(1)] }),
      422,
      'invalid_reference',
    );
    assert.equal(await countRows(ctx.db, 'outgoing_invoices'), before);
  });

  it('deposits and partials split over the plan’s rates; the final deducts booked ones (net and tax per rate)', async () => {
    const plan = await partialPlan();
    const deposit = await api.post(`/outgoing-invoices/${plan.id}/plan-invoices`, {
      type: 'deposit',
      value: 3000,
    });
    assert.equal(deposit.status, 201);
    assert.equal(deposit.headers.location, `/api/v1/outgoing-invoices/${deposit.body.data.id}`);
    const d = deposit.body.data;
    assert.equal(d.type, 'deposit');
    assert.equal(d.master_id, plan.id);
    assert.equal(d.status, 'open');
    assert.deepEqual(d.taxes, [
      { rate: 7, net: 500, tax: 35 },
      { rate: 19, net: 2500, tax: 475 },
    ]);
    const partial = await api.post(`/outgoing-invoices/${plan.id}/plan-invoices`, {
      type: 'partial',
      line_items: [line(1000, { title: 'Milestone 1' })],
      value: 100,
    });
    assert.equal(partial.status, 201);
    const p = partial.body.data;
    assert.equal(p.net_total, 1100);
    // Unbooked plan invoices are not deducted yet.
    let final = (await reader.get(`/outgoing-invoices/${plan.final_invoice_id}`)).body.data;
    assert.deepEqual(final.deductions, []);
    assert.equal(final.gross_total, 14040);
    // The final cannot be booked while plan invoices are open.
    expectProblem(await api.post(`/outgoing-invoices/${plan.final_invoice_id}/book`), 409, 'conflict');
    await bookNow(api, d.id);
    final = (await reader.get(`/outgoing-invoices/${plan.final_invoice_id}`)).body.data;
    assert.deepEqual(
      final.deductions.map((x: any) => [x.invoice_id, x.type, x.net_total, x.tax_total, x.gross_total]),
      [[d.id, 'deposit', 3000, 510, 3510]],
    );
    assert.deepEqual(final.plan_total, {
      net_total: 12000,
      tax_total: 2040,
      gross_total: 14040,
      taxes: [
        { rate: 7, net: 2000, tax: 140 },
        { rate: 19, net: 10000, tax: 1900 },
      ],
    });
    assert.deepEqual(final.taxes, [
      { rate: 7, net: 1500, tax: 105 },
      { rate: 19, net: 7500, tax: 1425 },
    ]);
    assert.equal(final.gross_total, 14040 - 3510);
    assert.equal(final.open_total, 10530);
    await bookNow(api, p.id);
    final = (await reader.get(`/outgoing-invoices/${plan.final_invoice_id}`)).body.data;
    assert.equal(final.deductions.length, 2);
    assert.equal(final.net_total, 12000 - 3000 - 1100);
    const booked = await bookNow(api, plan.final_invoice_id);
    assert.equal(booked.gross_total, final.gross_total);
    assert.match(booked.invoice_number, /^RE-/);
    const master = (await reader.get(`/outgoing-invoices/master/${plan.id}`)).body.data;
    assert.deepEqual(
      master.children.map((c: any) => [c.type, c.status]),
      [
        ['final', 'booked'],
        ['deposit', 'booked'],
        ['partial', 'booked'],
      ],
    );
    // Closed plan: nothing more can be added.
    expectProblem(
      await api.post(`/outgoing-invoices/${plan.id}/plan-invoices`, { type: 'deposit', value: 1 }),
      409,
    );
  });

  it('a plan can never invoice more than its total (422), and changes stay within it', async () => {
    const plan = await partialPlan();
    const before = await countRows(ctx.db, 'outgoing_invoices');
    const over = await api.post(`/outgoing-invoices/${plan.id}/plan-invoices`, {
      type: 'deposit',
      value: 12000.01,
    });
    assert.deepEqual(
      expectProblem(over, 422).errors!.map((e) => e.field),
      ['value'],
    );
    assert.equal(await countRows(ctx.db, 'outgoing_invoices'), before);
    const full = await api.post(`/outgoing-invoices/${plan.id}/plan-invoices`, {
      type: 'deposit',
      value: 12000,
    });
    assert.equal(full.status, 201);
    assert.equal(full.body.data.gross_total, 14040);
    const more = await api.post(`/outgoing-invoices/${plan.id}/plan-invoices`, {
      type: 'partial',
      line_items: [line(0.01)],
    });
    assert.deepEqual(
      expectProblem(more, 422).errors!.map((e) => e.field),
      ['line_items'],
    );
    // A credit makes room again.
    const credit = await api.post(`/outgoing-invoices/${plan.id}/plan-invoices`, {
      type: 'credit',
      value: 500,
    });
    assert.equal(credit.status, 201);
    assert.equal(credit.body.data.type, 'credit');
    assert.equal(credit.body.data.net_total, -500);
    const small = await api.post(`/outgoing-invoices/${plan.id}/plan-invoices`, {
      type: 'partial',
      value: 500,
    });
    assert.equal(small.status, 201);
    // Raising a deposit beyond the plan, or cutting the plan below what is invoiced, is refused.
    expectProblem(
      await api.patch(`/outgoing-invoices/${small.body.data.id}`, { line_items: [line(501)] }),
      422,
    );
    expectProblem(
      await api.patch(`/outgoing-invoices/${plan.final_invoice_id}`, { line_items: [line(100)] }),
      422,
    );
    const master = (await reader.get(`/outgoing-invoices/master/${plan.id}`)).body.data;
    assert.equal(master.invoiced_net_total, 12000);
    assert.equal(master.remaining_net_total, 0);
    assert.equal((await reader.get(`/outgoing-invoices/${small.body.data.id}`)).body.data.net_total, 500);
  });

  it('deleting a plan (forced, it has a booked invoice) deletes its unbooked invoices and keeps booked ones', async () => {
    const m = (await recurring({ plan_start: '2026-01-01', plan_end: '2026-03-31' })).body.data;
    const kids = (await api.post(`/outgoing-invoices/${m.id}/generate`)).body.data.children;
    await bookNow(api, kids[0].id);
    expectProblem(await api.delete(`/outgoing-invoices/${m.id}`), 409, 'plan_has_booked_invoices');
    assert.equal(
      (await (await ctx.as('outgoing-invoice:force-delete')).delete(`/outgoing-invoices/${m.id}/force`))
        .status,
      204,
    );
    // The plan stays readable for the booked invoice that names it; it takes no more changes.
    assert.ok((await reader.get(`/outgoing-invoices/master/${m.id}`)).body.data.deleted_at);
    expectProblem(await api.post(`/outgoing-invoices/${m.id}/generate`), 404);
    assert.equal((await reader.get(`/outgoing-invoices/${kids[0].id}`)).body.data.status, 'booked');
    assert.ok((await reader.get(`/outgoing-invoices/${kids[1].id}`)).body.data.deleted_at);
    assert.ok((await reader.get(`/outgoing-invoices/${kids[2].id}`)).body.data.deleted_at);
    assert.ok(
      !(await reader.get('/outgoing-invoices/master?per_page=100')).body.data.some((x: any) => x.id === m.id),
    );
  });

  it('plan totals with cents serialize exactly (master, final, deductions)', async () => {
    const plan = (
      await api.post('/outgoing-invoices/partial-plans', {
        client_id: clientId,
        line_items: [line(33.33), line(33.33), line(33.33, { tax_rate: 7 })],
      })
    ).body.data;
    assert.deepEqual(
      [plan.net_total, plan.tax_total, plan.gross_total, plan.remaining_gross_total],
      [99.99, 15.0, 114.99, 114.99],
    );
    const dep = (
      await api.post(`/outgoing-invoices/${plan.id}/plan-invoices`, { type: 'deposit', value: 10.01 })
    ).body.data;
    await bookNow(api, dep.id);
    const final = (await reader.get(`/outgoing-invoices/${plan.final_invoice_id}`)).body.data;
    assert.equal(final.plan_total.gross_total, 114.99);
    assert.equal(final.deductions[0].net_total, 10.01);
    assert.equal(Math.round((final.gross_total + final.deductions[0].gross_total) * 100), 11499);
    const master = (await reader.get(`/outgoing-invoices/master/${plan.id}`)).body.data;
    assert.equal(master.invoiced_net_total, 10.01);
    assert.equal(master.remaining_net_total, 89.98);
  });

  it('plan invoices: 422 on bad combinations, on other masters and plain invoices', async () => {
    const plan = await partialPlan();
    const at = `/outgoing-invoices/${plan.id}/plan-invoices`;
    const fields = async (body: unknown) =>
      expectProblem(await api.post(at, body), 422).errors!.map((e) => e.field);
    assert.deepEqual(await fields({ type: 'deposit' }), ['value']);
    assert.deepEqual(await fields({ type: 'deposit', value: 10, line_items: [line(1)] }), ['line_items']);
    assert.deepEqual(await fields({ type: 'credit', line_items: [line(1)] }), ['line_items']);
    assert.deepEqual(await fields({ type: 'partial' }), ['value']);
    assert.deepEqual(await fields({ type: 'partial', value: 0 }), ['value']);
    assert.deepEqual(await fields({ type: 'partial', value: 1.005 }), ['value']);
    assert.deepEqual(await fields({ type: 'final', value: 1 }), ['type']);
    const inv = await makeInvoice(api, { client_id: clientId });
    expectProblem(
      await api.post(`/outgoing-invoices/${inv.id}/plan-invoices`, { type: 'deposit', value: 1 }),
      422,
      'unprocessable',
    );
    expectProblem(
      await api.post(`/outgoing-invoices/${plan.final_invoice_id}/plan-invoices`, {
        type: 'deposit',
        value: 1,
      }),
      422,
    );
    expectProblem(await api.patch(`/outgoing-invoices/${plan.id}`, { line_items: [] }), 422);
    assert.equal((await reader.get(`/outgoing-invoices/master/${plan.id}`)).body.data.children.length, 1);
  });
});
