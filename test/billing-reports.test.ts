import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import {
  addClient,
  addProject,
  type BillingFixture,
  billableOf,
  centsOf,
  type FixtureEffort,
  fixtureRate,
  RATES,
  seedBilling,
} from './billing.fixtures.js';
import { type Api, describeEachDb, expectProblem } from './helpers.js';

const READ = ['efforts:read', 'outgoing-invoice:read'];
const cents = (amount: number) => BigInt(Math.round(amount * 100));

/** The figures of some efforts, computed from the fixture alone. */
function figures(f: BillingFixture, efforts: FixtureEffort[], billed: Set<number>) {
  const cost: Record<number, number> = {
    [f.users.a]: RATES.cost.a,
    [f.users.b]: RATES.cost.b,
    [f.users.c]: RATES.cost.c,
  };
  let billable = 0;
  let value = 0n;
  let billedValue = 0n;
  let uninvoiced = 0n;
  let costs = 0n;
  for (const e of efforts) {
    costs += centsOf(e.minutes, cost[e.user_id]!);
    if (!billableOf(e)) continue;
    billable += e.minutes;
    const v = centsOf(e.minutes, fixtureRate(f, e).rate);
    value += v;
    if (billed.has(e.id)) billedValue += v;
    else uninvoiced += v;
  }
  const tracked = efforts.reduce((s, e) => s + e.minutes, 0);
  return {
    minutes: { tracked, billable, non_billable: tracked - billable, unrated: 0 },
    billable_value: value,
    billed_value: billedValue,
    uninvoiced_value: uninvoiced,
    cost: costs,
  };
}

function assertFigures(actual: any, expected: ReturnType<typeof figures>, what: string) {
  assert.deepEqual(actual.minutes, expected.minutes, `${what}: minutes`);
  for (const k of ['billable_value', 'billed_value', 'uninvoiced_value', 'cost'] as const)
    assert.equal(cents(actual[k]), expected[k], `${what}: ${k}`);
}

describeEachDb('profitability reports', (ctx) => {
  let f: BillingFixture;
  let api: Api;
  let writer: Api;
  const billed = new Set<number>();

  before(async () => {
    f = await seedBilling(ctx);
    api = await ctx.as([...READ, 'efforts:extended:read']);
    writer = await ctx.as([
      'outgoing-invoice:write',
      'outgoing-invoice:read',
      'outgoing-invoice:book',
      'efforts:read',
    ]);
  });

  const on = (projectId: number) => f.efforts.filter((e) => e.project_id === projectId);

  async function checkReport(projectId: number, invoiced: { booked: bigint; open: bigint }) {
    const res = await api.get(`/projects/${projectId}/report`);
    assert.equal(res.status, 200, res.text);
    const r = res.body.data;
    const efforts = on(projectId);
    const total = figures(f, efforts, billed);
    assertFigures(r.totals, total, 'totals');
    assert.equal(cents(r.totals.invoiced_net.booked), invoiced.booked);
    assert.equal(cents(r.totals.invoiced_net.open), invoiced.open);
    assert.equal(cents(r.totals.margin), invoiced.booked + invoiced.open - total.cost);
    for (const u of r.by_user)
      assertFigures(
        u,
        figures(
          f,
          efforts.filter((e) => e.user_id === u.user_id),
          billed,
        ),
        `user ${u.user_id}`,
      );
    for (const t of r.by_task)
      assertFigures(
        t,
        figures(
          f,
          efforts.filter((e) => e.task_id === t.task_id),
          billed,
        ),
        `task ${t.task_id}`,
      );
    for (const m of r.by_month)
      assertFigures(
        m,
        figures(
          f,
          efforts.filter((e) => e.date.startsWith(m.month)),
          billed,
        ),
        `month ${m.month}`,
      );
    // Every effort in exactly one part of each cut.
    for (const parts of [r.by_user, r.by_task, r.by_month])
      assert.equal(
        parts.reduce((s: number, p: any) => s + p.minutes.tracked, 0),
        total.minutes.tracked,
      );
    for (const p of [...r.by_user, ...r.by_task, ...r.by_month])
      assert.equal(cents(p.margin), cents(p.billed_value) - cents(p.cost));
    return r;
  }

  it('a project’s report equals the fixture’s figures, before and after billing and booking', async () => {
    const p1 = f.projects.p1;
    const r = await checkReport(p1, { booked: 0n, open: 0n });
    assert.equal(r.includes_admin_efforts, true);
    assert.equal(r.currency, 'EUR');
    assert.deepEqual(r.budget, {
      minutes: 12000,
      amount: 20000,
      minutes_left: 12000 - r.totals.minutes.tracked,
      amount_left: 20000,
    });
    assert.deepEqual(
      r.by_month.map((m: { month: string }) => m.month),
      ['2026-10', '2026-11'],
    );

    // Bill October by effort: the invoice's net is the billed value, to the cent.
    const inv = await writer.post('/outgoing-invoices/from-efforts', {
      project_id: p1,
      date_from: '2026-10-01',
      date_to: '2026-10-31',
      group_by: 'effort',
    });
    assert.equal(inv.status, 201, inv.text);
    for (const e of on(p1)) if (billableOf(e) && e.date < '2026-11-01') billed.add(e.id);
    const net = cents(inv.body.data.net_total);
    const after = await checkReport(p1, { booked: 0n, open: net });
    assert.equal(cents(after.totals.billed_value), net, 'grouped by effort, the invoice equals the report');
    assert.equal(cents(after.budget.amount_left), 2_000_000n - net);

    const booked = await writer.post(`/outgoing-invoices/${inv.body.data.id}/book`, {});
    assert.equal(booked.status, 200, booked.text);
    await checkReport(p1, { booked: net, open: 0n });
  });

  it('counts admin time only with efforts:extended:read', async () => {
    const plain = await ctx.as(READ);
    const res = await plain.get(`/projects/${f.projects.p2}/report`);
    assert.equal(res.status, 200, res.text);
    const efforts = on(f.projects.p2).filter((e) => e.type !== 'admin');
    assert.equal(res.body.data.includes_admin_efforts, false);
    assert.deepEqual(res.body.data.totals.minutes, figures(f, efforts, billed).minutes);
    assert.ok(
      on(f.projects.p2).some((e) => e.type === 'admin'),
      'the fixture has admin time on P2',
    );
  });

  it('lists what is not invoiced yet per project and client', async () => {
    const res = await api.get('/reports/uninvoiced');
    assert.equal(res.status, 200, res.text);
    const { projects, clients, totals } = res.body.data;
    const expected = (projectId: number) =>
      on(projectId)
        .filter((e) => billableOf(e) && !billed.has(e.id))
        .reduce((s, e) => s + centsOf(e.minutes, fixtureRate(f, e).rate), 0n);
    const byId = new Map(projects.map((p: { project_id: number }) => [p.project_id, p]));
    assert.equal(cents((byId.get(f.projects.p1) as any).value), expected(f.projects.p1));
    assert.equal(cents((byId.get(f.projects.p2) as any).value), expected(f.projects.p2));
    assert.ok(!byId.has(f.projects.fixed), 'fixed-price projects are billed by their plan');
    assert.equal(clients.length, 1);
    assert.equal(clients[0].client_id, f.clientId);
    assert.equal(cents(clients[0].value), expected(f.projects.p1) + expected(f.projects.p2));
    assert.equal(clients[0].currency, 'EUR');
    assert.equal(totals.length, 1);
    assert.equal(cents(totals[0].value), cents(clients[0].value));
    assert.equal(totals[0].minutes, clients[0].minutes);
    const october = await api.get('/reports/uninvoiced?date_from=2026-10-01&date_to=2026-10-31');
    assert.equal(october.status, 200);
    assert.ok(
      !october.body.data.projects.some((p: { project_id: number }) => p.project_id === f.projects.p1),
      'October of P1 is billed',
    );
  });

  it('401, 403 per missing scope, 404 for another tenant’s project, 422 on bad input', async () => {
    const other = await addProject(ctx.db, ctx.other.accountId, await addClient(ctx.db, ctx.other.accountId));
    for (const path of [`/projects/${f.projects.p1}/report`, '/reports/uninvoiced']) {
      expectProblem(await ctx.anon.get(path), 401, 'unauthorized');
      for (const missing of READ) {
        const token = await ctx.as(READ.filter((s) => s !== missing));
        const p = expectProblem(await token.get(path), 403, 'insufficient_scope');
        assert.ok(p.required_scopes!.includes(missing));
      }
    }
    expectProblem(await api.get(`/projects/${other}/report`), 404, 'not_found');
    expectProblem(await api.get('/reports/uninvoiced?date_from=2026-11-01&date_to=2026-10-01'), 422);
    expectProblem(await api.get('/reports/uninvoiced?date_from=yesterday'), 422);
    expectProblem(await api.get('/reports/uninvoiced?client=1'), 422);
  });
});
