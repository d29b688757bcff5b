import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { type Api, describeEachDb, expectProblem, multipart } from './helpers.js';
import { bookNow, freshAccount, line, makeClient, makeInvoice } from './invoicing.fixtures.js';

const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

/** Nothing hidden from an auditor, and plans that keep their shape. */
describeEachDb('outgoing invoices: deleted ones stay visible, numbers explained, plans whole', (ctx) => {
  let api: Api;
  let adminId: number;
  let clientId: number;
  const dated = { date: '2026-03-02', service_period_start: '2026-03-01', service_period_end: '2026-03-01' };
  const draft = async (extra: Record<string, unknown> = {}) =>
    makeInvoice(api, { client_id: clientId, ...dated, line_items: [line(100)], ...extra });
  const booked = async () => bookNow(api, (await draft()).id);

  before(async () => {
    const fresh = await freshAccount(ctx);
    api = fresh.api;
    adminId = fresh.acc.users.admin;
    clientId = await makeClient(api);
  });

  it('deleted and force-deleted invoices stay readable by id, with deleted_at and deleted_by', async () => {
    const d = await draft();
    assert.equal((await api.delete(`/outgoing-invoices/${d.id}`)).status, 204);
    const read = await api.get(`/outgoing-invoices/${d.id}`);
    assert.equal(read.status, 200, read.text);
    assert.ok(read.body.data.deleted_at);
    assert.equal(read.body.data.deleted_by, adminId);
    const b = await booked();
    expectProblem(await api.delete(`/outgoing-invoices/${b.id}`), 409, 'invoice_booked');
    assert.equal((await api.get(`/outgoing-invoices/${b.id}`)).body.data.deleted_at, null);
    assert.equal((await api.delete(`/outgoing-invoices/${b.id}/force`)).status, 204);
    const gone = (await api.get(`/outgoing-invoices/${b.id}`)).body.data;
    assert.equal(gone.status, 'booked');
    assert.equal(gone.invoice_number, b.invoice_number);
    assert.ok(gone.deleted_at);
    assert.equal(gone.deleted_by, adminId);
    // Deleting it again: it is gone for writes.
    expectProblem(await api.delete(`/outgoing-invoices/${b.id}/force`), 404);
  });

  it('lists leave deleted invoices out unless deleted=true, which lists them too', async () => {
    const live = await draft();
    const dead = await draft();
    await api.delete(`/outgoing-invoices/${dead.id}`);
    const ids = async (q: string) =>
      (await api.get(`/outgoing-invoices?per_page=100${q}`)).body.data.map((i: any) => i.id);
    assert.ok((await ids('')).includes(live.id));
    assert.ok(!(await ids('')).includes(dead.id));
    const all = await ids('&deleted=true');
    assert.ok(all.includes(live.id) && all.includes(dead.id));
    const listed = (await api.get('/outgoing-invoices?per_page=100&deleted=true')).body.data;
    assert.ok(listed.find((i: any) => i.id === dead.id).deleted_at);
  });

  it('number-series: last number, booked count, gaps explained by deleted invoices; numbers never reused', async () => {
    const { api: fresh } = await freshAccount(ctx);
    const client = await makeClient(fresh);
    const book = async () =>
      bookNow(fresh, (await makeInvoice(fresh, { client_id: client, ...dated, line_items: [line(10)] })).id);
    const [one, two, three] = [await book(), await book(), await book()];
    assert.deepEqual(
      [one, two, three].map((i) => i.invoice_number),
      ['RE-2026-00001', 'RE-2026-00002', 'RE-2026-00003'],
    );
    const clean = await fresh.get('/outgoing-invoices/number-series');
    assert.equal(clean.status, 200, clean.text);
    assert.deepEqual(clean.body.data, [
      {
        kind: 'invoice',
        year: 2026,
        format: 'RE-{YYYY}-{NNNNN}',
        prefix: 'RE-2026-',
        last_sequence: 3,
        last_number: 'RE-2026-00003',
        booked_count: 3,
        gap_free: true,
        gaps: [],
      },
    ]);
    assert.equal((await fresh.delete(`/outgoing-invoices/${two.id}/force`)).status, 204);
    const four = await book();
    assert.equal(four.invoice_number, 'RE-2026-00004', 'a deleted invoice’s number is not reused');
    const series = (await fresh.get('/outgoing-invoices/number-series')).body.data[0];
    assert.equal(series.last_number, 'RE-2026-00004');
    assert.equal(series.booked_count, 3);
    assert.equal(series.gap_free, false);
    assert.equal(series.gaps.length, 1);
    const gap = series.gaps[0];
    assert.deepEqual(
      [gap.sequence, gap.invoice_number, gap.reason, gap.invoice_id],
      [2, 'RE-2026-00002', 'deleted', two.id],
    );
    assert.ok(gap.deleted_at);
    const credit = await makeInvoice(fresh, {
      type: 'credit',
      client_id: client,
      credited_invoice_id: one.id,
      ...dated,
      line_items: [line(-1)],
    });
    await bookNow(fresh, credit.id);
    const kinds = (await fresh.get('/outgoing-invoices/number-series')).body.data.map((s: any) => s.kind);
    assert.deepEqual(kinds, ['credit', 'invoice']);
    expectProblem(await fresh.get('/outgoing-invoices/number-series?foo=1'), 422);
  });

  it('a partial plan’s final invoice cannot be deleted on its own (409 plan_final_invoice)', async () => {
    const plan = (
      await api.post('/outgoing-invoices/partial-plans', { client_id: clientId, line_items: [line(100)] })
    ).body.data;
    const finalId = plan.final_invoice_id;
    assert.ok(finalId);
    expectProblem(await api.delete(`/outgoing-invoices/${finalId}`), 409, 'plan_final_invoice');
    expectProblem(await api.delete(`/outgoing-invoices/${finalId}/force`), 409, 'plan_final_invoice');
    assert.equal((await api.get(`/outgoing-invoices/master/${plan.id}`)).body.data.final_invoice_id, finalId);
    // Deleting the plan takes its final draft along.
    assert.equal((await api.delete(`/outgoing-invoices/${plan.id}`)).status, 204);
    assert.ok((await api.get(`/outgoing-invoices/${finalId}`)).body.data.deleted_at);
  });

  it('a plan with booked invoices: DELETE is refused (409); forced, the plan stays readable', async () => {
    const plan = (
      await api.post('/outgoing-invoices/recurring-plans', {
        type: 'recurring1',
        client_id: clientId,
        plan_start: '2026-01-01',
        plan_end: '2026-02-28',
        line_items: [line(10)],
      })
    ).body.data;
    const children = (await api.post(`/outgoing-invoices/${plan.id}/generate`)).body.data.children;
    assert.equal(children.length, 2);
    const child = await bookNow(api, children[0].id);
    expectProblem(await api.delete(`/outgoing-invoices/${plan.id}`), 409, 'plan_has_booked_invoices');
    assert.equal((await api.get(`/outgoing-invoices/master/${plan.id}`)).body.data.deleted_at, null);
    assert.equal((await api.delete(`/outgoing-invoices/${plan.id}/force`)).status, 204);
    const master = await api.get(`/outgoing-invoices/master/${plan.id}`);
    assert.equal(master.status, 200, master.text);
    assert.ok(master.body.data.deleted_at);
    const kept = (await api.get(`/outgoing-invoices/${child.id}`)).body.data;
    assert.equal(kept.master_id, plan.id);
    assert.equal(kept.deleted_at, null);
    assert.ok(
      (await api.get(`/outgoing-invoices/${children[1].id}`)).body.data.deleted_at,
      'the draft went along',
    );
  });

  it('external credits are checked like booked credits: a credit must total below zero', async () => {
    const send = async (data: Record<string, unknown>) => {
      const form = await multipart(
        { name: 'c.pdf', type: 'application/pdf', data: PDF },
        { data: JSON.stringify(data) },
      );
      return api.request('POST', '/outgoing-invoices/external', form.body, form.headers);
    };
    const base = {
      type: 'credit',
      client_id: clientId,
      date: '2026-03-02',
      service_period_start: '2026-03-01',
    };
    const positive = expectProblem(
      await send({ ...base, invoice_number: 'EXT-GS-1', line_items: [line(10)] }),
      422,
      'validation_failed',
    );
    assert.deepEqual(
      positive.errors!.map((e) => e.field),
      ['data.line_items'],
    );
    const invoiceBelowZero = expectProblem(
      await send({ ...base, type: 'invoice', invoice_number: 'EXT-RE-1', line_items: [line(-10)] }),
      422,
    );
    assert.deepEqual(
      invoiceBelowZero.errors!.map((e) => e.field),
      ['data.line_items'],
    );
    const ok = await send({ ...base, invoice_number: 'EXT-GS-2', line_items: [line(-10)] });
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.body.data.gross_total, -11.9);
  });
});
