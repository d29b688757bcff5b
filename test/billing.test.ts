import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import {
  addClient,
  addEfforts,
  addProject,
  type BillingFixture,
  billableOf,
  centsOf,
  fixtureRate,
  RATES,
  roundUp,
  seedBilling,
} from './billing.fixtures.js';
import { type Api, countRows, describeEachDb, expectProblem } from './helpers.js';

const WRITE = ['outgoing-invoice:write', 'outgoing-invoice:read', 'efforts:read'];
const toCents = (amount: number) => Math.round(amount * 100);

describeEachDb('invoices from efforts', (ctx) => {
  let f: BillingFixture;
  let api: Api;

  before(async () => {
    f = await seedBilling(ctx);
    api = await ctx.as([...WRITE, 'outgoing-invoice:force-delete']);
  });

  const billableOn = (projectId: number, from = '2026-10-01', to = '2026-11-30') =>
    f.efforts.filter((e) => e.project_id === projectId && billableOf(e) && e.date >= from && e.date <= to);

  it('bills a project by effort: 201, open, the net computed independently to the cent', async () => {
    const expected = billableOn(f.projects.p1);
    const net = expected.reduce((s, e) => s + centsOf(e.minutes, fixtureRate(f, e).rate), 0n);
    // Every level of the rate order is reached on P1 and P2 together.
    const sources = new Set(f.efforts.filter(billableOf).map((e) => fixtureRate(f, e).source));
    assert.deepEqual([...sources].sort(), ['account', 'effort', 'project', 'task', 'team', 'user']);

    const res = await api.post('/outgoing-invoices/from-efforts', {
      project_id: f.projects.p1,
      date_from: '2026-10-01',
      date_to: '2026-11-30',
      group_by: 'effort',
    });
    assert.equal(res.status, 201, res.text);
    const inv = res.body.data;
    assert.equal(res.headers.location, `/api/v1/outgoing-invoices/${inv.id}`);
    assert.equal(inv.status, 'open');
    assert.equal(inv.client_id, f.clientId);
    assert.equal(inv.project_id, f.projects.p1);
    assert.equal(inv.line_items.length, expected.length);
    assert.equal(BigInt(toCents(inv.net_total)), net);
    assert.equal(inv.line_items[0].unit, 'h');
    assert.equal(inv.line_items[0].tax_rate, 19);
    assert.equal(inv.service_period_start, '2026-10-01');

    // The timesheet: each effort once, with its rate, source and amount; the amounts add up.
    const sheet = await api.get(`/outgoing-invoices/${inv.id}/efforts?per_page=100`);
    assert.equal(sheet.status, 200, sheet.text);
    assert.equal(sheet.body.meta.total, expected.length);
    const byId = new Map(expected.map((e) => [e.id, e]));
    let sum = 0n;
    for (const row of sheet.body.data) {
      const e = byId.get(row.effort_id)!;
      assert.ok(e, `effort ${row.effort_id} is billed`);
      const r = fixtureRate(f, e);
      assert.equal(row.rate_source, r.source);
      assert.equal(toCents(row.hourly_rate), r.rate);
      assert.equal(row.minutes_billed, e.minutes);
      assert.equal(BigInt(toCents(row.amount)), centsOf(e.minutes, r.rate));
      sum += BigInt(toCents(row.amount));
    }
    assert.equal(sum, net);

    // Nothing left in that scope.
    const again = await api.post('/outgoing-invoices/from-efforts', {
      project_id: f.projects.p1,
      date_from: '2026-10-01',
      date_to: '2026-11-30',
    });
    expectProblem(again, 422, 'nothing_to_bill');

    // Named efforts that stand on it: 409 naming them.
    const named = await api.post('/outgoing-invoices/from-efforts', {
      project_id: f.projects.p1,
      date_from: '2026-10-01',
      date_to: '2026-11-30',
      effort_ids: [expected[0]!.id, expected[1]!.id],
    });
    const p = expectProblem(named, 409, 'effort_already_billed');
    assert.deepEqual(
      (p as { effort_ids?: number[] }).effort_ids,
      [expected[0]!.id, expected[1]!.id].sort((x, y) => x - y),
    );

    // Deleting the draft frees its efforts: the same call bills them again.
    assert.equal((await api.delete(`/outgoing-invoices/${inv.id}`)).status, 204);
    assert.equal(
      await ctx.db
        .selectFrom('invoice_efforts')
        .select('id')
        .where('invoice_id', '=', inv.id)
        .execute()
        .then((r) => r.length),
      0,
    );
    const rebilled = await api.post('/outgoing-invoices/from-efforts', {
      project_id: f.projects.p1,
      date_from: '2026-10-01',
      date_to: '2026-11-30',
      group_by: 'none',
    });
    assert.equal(rebilled.status, 201, rebilled.text);
    // One line per rate: the efforts of one line share one rate.
    const rates = new Set(expected.map((e) => fixtureRate(f, e).rate));
    assert.equal(rebilled.body.data.line_items.length, rates.size);
    // Clean up for the tests below.
    assert.equal((await api.delete(`/outgoing-invoices/${rebilled.body.data.id}`)).status, 204);
  });

  it('groups by task with rounding: lines of summed rounded minutes per (task, rate)', async () => {
    const efforts = billableOn(f.projects.p2, '2026-10-01', '2026-10-31');
    const groups = new Map<string, { minutes: number; rate: number }>();
    for (const e of efforts) {
      const rate = fixtureRate(f, e).rate;
      const key = `${e.task_id}/${rate}`;
      const g = groups.get(key) ?? { minutes: 0, rate };
      g.minutes += roundUp(e.minutes, 15);
      groups.set(key, g);
    }
    const net = [...groups.values()].reduce((s, g) => s + centsOf(g.minutes, g.rate), 0n);
    const res = await api.post('/outgoing-invoices/from-efforts', {
      project_id: f.projects.p2,
      date_from: '2026-10-01',
      date_to: '2026-10-31',
      group_by: 'task',
      rounding_minutes: 15,
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.line_items.length, groups.size);
    assert.equal(BigInt(toCents(res.body.data.net_total)), net);
    for (const l of res.body.data.line_items) assert.equal((l.quantity * 60 * 10000) % 1, 0);
    const sheet = await api.get(`/outgoing-invoices/${res.body.data.id}/efforts?per_page=100`);
    assert.equal(sheet.body.meta.total, efforts.length);
    for (const row of sheet.body.data) assert.equal(row.minutes_billed % 15, 0);
    assert.equal((await api.delete(`/outgoing-invoices/${res.body.data.id}`)).status, 204);
  });

  it('bills a client over its projects, and by day and user', async () => {
    for (const group_by of ['day', 'user']) {
      const res = await api.post('/outgoing-invoices/from-efforts', {
        client_id: f.clientId,
        date_from: '2026-11-01',
        date_to: '2026-11-30',
        group_by,
      });
      assert.equal(res.status, 201, res.text);
      const efforts = [
        ...billableOn(f.projects.p1, '2026-11-01'),
        ...billableOn(f.projects.p2, '2026-11-01'),
      ];
      const sheet = await api.get(`/outgoing-invoices/${res.body.data.id}/efforts?per_page=100`);
      assert.equal(
        sheet.body.meta.total,
        efforts.length,
        JSON.stringify([res.body.data.line_items.length, efforts.map((e) => e.project_id)]),
      );
      assert.equal(res.body.data.project_id, null);
      assert.equal((await api.delete(`/outgoing-invoices/${res.body.data.id}`)).status, 204);
    }
  });

  it('prints the timesheet pages on request, keeping the booked PDF as it was', async () => {
    const pages = (pdf: string) => (pdf.match(/\/Type \/Page\b/g) ?? []).length;
    const booker = await ctx.as([...WRITE, 'outgoing-invoice:book']);
    const made = await booker.post('/outgoing-invoices/from-efforts', {
      project_id: f.projects.p2,
      date_from: '2026-11-01',
      date_to: '2026-11-30',
      group_by: 'user',
    });
    assert.equal(made.status, 201, made.text);
    const id = made.body.data.id;
    const draftSheet = await booker.get(`/outgoing-invoices/${id}/pdf?timesheet=true`);
    assert.equal(draftSheet.status, 200, draftSheet.text.slice(0, 300));
    assert.equal(draftSheet.headers['content-type'], 'application/pdf');
    assert.equal((await booker.post(`/outgoing-invoices/${id}/book`, {})).status, 200);
    const plain = await booker.get(`/outgoing-invoices/${id}/pdf`);
    assert.equal(plain.status, 200);
    const sheet = await booker.get(`/outgoing-invoices/${id}/pdf?timesheet=true`);
    assert.equal(sheet.status, 200);
    assert.ok(sheet.text.startsWith('%PDF'));
    assert.ok(
      pages(sheet.text) > pages(plain.text),
      `${pages(sheet.text)} pages against ${pages(plain.text)}`,
    );
    assert.match(String(sheet.headers['content-disposition']), /timesheet/);
    // The kept PDF is still the plain one, byte for byte.
    const again = await booker.get(`/outgoing-invoices/${id}/pdf`);
    assert.equal(again.headers.etag, plain.headers.etag);
    assert.equal(again.text, plain.text);
    // The timesheet shows efforts: it needs efforts:read as well.
    const invoicesOnly = await ctx.as(['outgoing-invoice:read']);
    assert.equal((await invoicesOnly.get(`/outgoing-invoices/${id}/pdf`)).status, 200);
    const p = expectProblem(
      await invoicesOnly.get(`/outgoing-invoices/${id}/pdf?timesheet=true`),
      403,
      'insufficient_scope',
    );
    assert.ok(p.required_scopes!.includes('efforts:read'));
    expectProblem(await booker.get(`/outgoing-invoices/${id}/pdf?timesheet=maybe`), 422);
    expectProblem(await booker.get(`/outgoing-invoices/${id}/pdf?sheet=true`), 422);
    // An invoice that bills no efforts has no timesheet.
    const lump = await booker.post('/outgoing-invoices', {
      client_id: f.clientId,
      line_items: [{ title: 'Licence', quantity: 1, unit_price: 10, tax_rate: 19 }],
    });
    expectProblem(
      await booker.get(`/outgoing-invoices/${lump.body.data.id}/pdf?timesheet=true`),
      422,
      'unprocessable',
    );
  });

  it('refuses without token (401) and per missing scope (403)', async () => {
    const body = { project_id: f.projects.p1, date_from: '2026-10-01', date_to: '2026-10-31' };
    expectProblem(await ctx.anon.post('/outgoing-invoices/from-efforts', body), 401, 'unauthorized');
    for (const missing of ['outgoing-invoice:write', 'efforts:read']) {
      const token = await ctx.as(WRITE.filter((s) => s !== missing));
      const p = expectProblem(
        await token.post('/outgoing-invoices/from-efforts', body),
        403,
        'insufficient_scope',
      );
      assert.ok(p.required_scopes!.includes(missing));
    }
    // The timesheet: each of its two scopes missing.
    for (const scopes of [['outgoing-invoice:read'], ['efforts:read']]) {
      const token = await ctx.as(scopes);
      const p = expectProblem(await token.get('/outgoing-invoices/1/efforts'), 403, 'insufficient_scope');
      assert.deepEqual(p.required_scopes, ['outgoing-invoice:read', 'efforts:read']);
    }
    expectProblem(await ctx.anon.get('/outgoing-invoices/1/efforts'), 401, 'unauthorized');
  });

  it("another tenant's ids: 422 in the body, 404 in the path", async () => {
    const other = await seedOther(ctx);
    const base = { date_from: '2026-10-01', date_to: '2026-11-30' };
    let p = expectProblem(
      await api.post('/outgoing-invoices/from-efforts', { ...base, project_id: other.projectId }),
      422,
      'invalid_reference',
    );
    assert.equal(p.errors![0]!.field, 'project_id');
    p = expectProblem(
      await api.post('/outgoing-invoices/from-efforts', { ...base, client_id: other.clientId }),
      422,
      'invalid_reference',
    );
    assert.equal(p.errors![0]!.field, 'client_id');
    p = expectProblem(
      await api.post('/outgoing-invoices/from-efforts', {
        ...base,
        project_id: f.projects.p1,
        effort_ids: [other.effortId],
      }),
      422,
      'invalid_reference',
    );
    assert.equal(p.errors![0]!.field, 'effort_ids');
    const theirs = await ctx.as(WRITE, { accountId: ctx.other.accountId });
    const made = await theirs.post('/outgoing-invoices/from-efforts', {
      ...base,
      project_id: other.projectId,
    });
    assert.equal(made.status, 201, made.text);
    expectProblem(await api.get(`/outgoing-invoices/${made.body.data.id}/efforts`), 404, 'not_found');
  });

  it('422 on bad input, writing nothing', async () => {
    const before = await countRows(ctx.db, 'outgoing_invoices');
    const base = { project_id: f.projects.p1, date_from: '2026-10-01', date_to: '2026-10-31' };
    const bad: [Record<string, unknown>, string][] = [
      [{ ...base, client_id: f.clientId }, 'project_id'],
      [{ date_from: '2026-10-01', date_to: '2026-10-31' }, 'project_id'],
      [{ ...base, date_to: '2026-09-30' }, 'date_to'],
      [{ ...base, rounding_minutes: 0 }, 'rounding_minutes'],
      [{ ...base, rounding_minutes: 61 }, 'rounding_minutes'],
      [{ ...base, group_by: 'week' }, 'group_by'],
      [{ ...base, date_from: '2026-13-01' }, 'date_from'],
      [{ ...base, effort_ids: [] }, 'effort_ids'],
      [{ ...base, tax_rate: 19.001 }, 'tax_rate'],
      [{ ...base, extra: 1 }, 'extra'],
    ];
    for (const [body, field] of bad) {
      const p = expectProblem(await api.post('/outgoing-invoices/from-efforts', body), 422);
      assert.ok(
        p.errors?.some((e) => e.field === field),
        `${JSON.stringify(body)} names ${field}: ${JSON.stringify(p.errors)}`,
      );
    }
    // Named efforts that are not billable, admin time or out of the dates.
    const admin = f.efforts.find((e) => e.type === 'admin')!;
    const p = expectProblem(
      await api.post('/outgoing-invoices/from-efforts', {
        ...base,
        project_id: admin.project_id,
        date_to: '2026-11-30',
        effort_ids: [admin.id],
      }),
      422,
      'validation_failed',
    );
    assert.match(p.errors![0]!.message, /admin/);
    // A fixed-price project is billed by its plan.
    const fixed = expectProblem(
      await api.post('/outgoing-invoices/from-efforts', { ...base, project_id: f.projects.fixed }),
      422,
      'unprocessable',
    );
    assert.match(fixed.detail, /fixed-price/);
    assert.equal(await countRows(ctx.db, 'outgoing_invoices'), before);
  });

  /** A project of its own with 30 billable efforts, for a race. */
  async function raceProject() {
    const projectId = await addProject(ctx.db, ctx.account.accountId, f.clientId, { hourly_rate: 5000 });
    const ids = await addEfforts(
      ctx.db,
      ctx.account.accountId,
      Array.from({ length: 30 }, (_, i) => ({
        project_id: projectId,
        task_id: null,
        user_id: f.users.a,
        date: `2026-10-${String(1 + (i % 28)).padStart(2, '0')}`,
        minutes: 30 + i,
        billable: true,
        type: 'work',
        hourly_rate: null,
      })),
    );
    return { projectId, ids };
  }

  async function assertBilledOnce(projectId: number) {
    const links = await ctx.db
      .selectFrom('invoice_efforts as ie')
      .innerJoin('efforts as e', 'e.id', 'ie.effort_id')
      .select(['ie.effort_id', 'ie.invoice_id'])
      .where('e.project_id', '=', projectId)
      .execute();
    assert.equal(links.length, 30);
    assert.equal(new Set(links.map((l) => l.invoice_id)).size, 1);
    const invoices = await ctx.db
      .selectFrom('outgoing_invoices')
      .select('id')
      .where('project_id', '=', projectId)
      .execute();
    assert.equal(invoices.length, 1, 'the losers left no invoice behind');
  }

  it('10 concurrent calls over the same efforts: one invoice, nine 409, no effort billed twice', async () => {
    const { projectId, ids } = await raceProject();
    const body = { project_id: projectId, date_from: '2026-10-01', date_to: '2026-10-31', effort_ids: ids };
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => api.post('/outgoing-invoices/from-efforts', body)),
    );
    const statuses = answers.map((a) => a.status).sort();
    assert.deepEqual(
      statuses,
      [201, 409, 409, 409, 409, 409, 409, 409, 409, 409],
      answers.map((a) => a.text).join('\n'),
    );
    for (const a of answers.filter((x) => x.status === 409)) {
      const p = expectProblem(a, 409, 'effort_already_billed') as { effort_ids?: number[] };
      assert.deepEqual(
        p.effort_ids,
        [...ids].sort((x, y) => x - y),
      );
    }
    await assertBilledOnce(projectId);
  });

  it('10 concurrent calls over a project: one invoice; the others 409 mid-flight or 422 after', async () => {
    const { projectId } = await raceProject();
    const body = { project_id: projectId, date_from: '2026-10-01', date_to: '2026-10-31', group_by: 'none' };
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => api.post('/outgoing-invoices/from-efforts', body)),
    );
    assert.equal(answers.filter((a) => a.status === 201).length, 1, answers.map((a) => a.text).join('\n'));
    for (const a of answers.filter((x) => x.status !== 201)) {
      if (a.status === 409) expectProblem(a, 409, 'effort_already_billed');
      else expectProblem(a, 422, 'nothing_to_bill');
    }
    await assertBilledOnce(projectId);
  });
});

/** A project with one effort in the second account. */
async function seedOther(ctx: Parameters<Parameters<typeof describeEachDb>[1]>[0]) {
  const accountId = ctx.other.accountId;
  const clientId = await addClient(ctx.db, accountId);
  const projectId = await addProject(ctx.db, accountId, clientId, { hourly_rate: RATES.projectP1 });
  const [effortId] = await addEfforts(ctx.db, accountId, [
    {
      project_id: projectId,
      task_id: null,
      user_id: ctx.other.users.member,
      date: '2026-10-05',
      minutes: 90,
      billable: true,
      type: 'work',
      hourly_rate: null,
    },
  ]);
  return { clientId, projectId, effortId: effortId! };
}
