import assert from 'node:assert/strict';
import { after, afterEach, before, it } from 'node:test';
import type { MailConfig } from '../src/config.js';
import type { Db } from '../src/db/index.js';
import { MailWorker, sendInvoice } from '../src/modules/mail/mail.public.js';
import { addDays, planSchedule } from '../src/modules/outgoing-invoices/invoices.domain.js';
import {
  RECURRING_PLANS,
  recurringPlansJob,
  runRecurringPlans,
} from '../src/modules/outgoing-invoices/outgoing-invoices.public.js';
import type { QueueInvoice } from '../src/modules/outgoing-invoices/plans.service.js';
import { silentLogger } from '../src/shared/job-loop.js';
import type { Clock } from '../src/shared/scheduled-job.js';
import { todayIso } from '../src/shared/time.js';
import { type Api, connectAgain, describeEachDb, expectProblem } from './helpers.js';
import { line, makeClient, makeInvoice } from './invoicing.fixtures.js';
import { Relay } from './mail.support.js';

const FROM = 'plans@mailer.example';
/** The config the queue function is given: the worker is pointed at the test relay itself. */
const APP_MAIL: MailConfig = { smtpUrl: 'smtp://127.0.0.1:9', from: FROM, dkim: null };
const SCOPES = [
  'outgoing-invoice:read',
  'outgoing-invoice:write',
  'outgoing-invoice:book',
  'outgoing-invoice:send',
  'client:write',
];

/** A clock standing still until moved; `at(day, minutes)` puts it on a day, after midnight UTC. */
const clockAt = (day: string) => {
  let ms = Date.parse(`${day}T00:20:00Z`);
  return {
    now: () => new Date(ms),
    at(d: string, minutes = 20) {
      ms = Date.parse(`${d}T00:00:00Z`) + minutes * 60_000;
    },
    forward(minutes: number) {
      ms += minutes * 60_000;
    },
  } satisfies Clock & Record<string, unknown>;
};

const queueTo = (): QueueInvoice => (db, auth, id) => sendInvoice(db, auth, id, {}, APP_MAIL);

/** A plan's period starts: the months of a year from today. */
const yearFrom = (start: string) => {
  const end = addDays(planSchedule(start, addDays(start, 400), 12)[1]!.start, -1);
  return { start, end, periods: planSchedule(start, end, 1).map((p) => p.start) };
};

describeEachDb('recurring plans that run themselves', (ctx) => {
  let api: Api;
  let relay: Relay;
  let port: number;
  let mailer: MailWorker;

  before(async () => {
    api = await ctx.as(SCOPES);
    relay = new Relay();
    port = await relay.start();
    mailer = new MailWorker(ctx.db, ctx.kind, {
      mail: { smtpUrl: `smtp://127.0.0.1:${port}`, from: FROM, dkim: null },
      pollIntervalMs: 10,
      retryDelaysMs: [50, 50, 50],
    });
  });
  afterEach(async () => {
    // Each test's plans only: the scheduler looks at every account's plans.
    await ctx.db.updateTable('outgoing_invoices').set({ auto_generate: 0, auto_send: 0 }).execute();
    await ctx.db.deleteFrom('scheduled_jobs').execute();
  });
  after(async () => {
    await mailer.stop();
    await relay.stop();
  });

  const plan = async (body: Record<string, unknown> = {}) => {
    const clientId = await makeClient(api, { email: 'ap@client.example' });
    const res = await api.post('/outgoing-invoices/recurring-plans', {
      type: 'recurring1',
      client_id: clientId,
      title: 'Hosting',
      plan_start: todayIso(),
      plan_end: yearFrom(todayIso()).end,
      auto_generate: true,
      auto_send: true,
      line_items: [line(49.9, { title: 'Hosting' })],
      ...body,
    });
    assert.equal(res.status, 201, res.text);
    return res.body.data;
  };
  const master = async (id: number) => {
    const res = await api.get(`/outgoing-invoices/master/${id}`);
    assert.equal(res.status, 200, res.text);
    return res.body.data;
  };
  /** Every message the relay got for the plan's invoices, by invoice number. */
  const delivered = async (numbers: string[]) => {
    while ((await mailer.runOnce()) > 0);
    return relay.accepted.filter((r) => numbers.some((n) => r.mail.subject?.includes(n)));
  };
  const numbersOf = async (m: any) => {
    const out: string[] = [];
    for (const c of m.children) {
      const inv = (await api.get(`/outgoing-invoices/${c.id}`)).body.data;
      if (inv.invoice_number) out.push(inv.invoice_number);
    }
    return out;
  };
  const job = (clock: Clock, opts: { db?: Db; queue?: QueueInvoice | null } = {}) =>
    recurringPlansJob(opts.db ?? ctx.db, {
      queue: opts.queue === undefined ? queueTo() : opts.queue,
      logger: silentLogger,
      clock,
    });

  it('a year of a monthly plan over restarts, a crash, a dead lease and downtime: 12 invoices, 12 messages', async () => {
    const m = await plan();
    assert.equal(m.auto_generate, true);
    assert.equal(m.auto_send, true);
    assert.equal(m.auto_from, todayIso());
    const { periods } = yearFrom(m.plan_start);
    assert.equal(periods.length, 12);
    const clock = clockAt(periods[0]!);
    let current = job(clock);
    const restart = () => (current = job(clock));

    for (let i = 0; i < 12; i++) {
      clock.at(periods[i]!);
      if (i === 3 || i === 6 || i === 9) restart();
      if (i === 4) {
        // The process dies after the invoice was made, before it was booked and queued.
        const crashing = job(clock, {
          queue: () => {
            throw new Error('killed');
          },
        });
        assert.equal(await crashing.tick(), true);
        const run = (await master(m.id)).auto_runs.find((r: any) => r.period_start === periods[i]);
        assert.equal(run.state, 'pending_send');
        assert.equal((await api.get(`/outgoing-invoices/${run.invoice_id}`)).body.data.status, 'open');
        clock.forward(16);
        restart();
      }
      if (i === 7) {
        // A process took the lease and died: nobody runs until the lease has run out.
        await ctx.db
          .updateTable('scheduled_jobs')
          .set({
            lease_holder: 'dead',
            lease_until: new Date(clock.now().getTime() + 5 * 60_000).toISOString(),
          })
          .where('name', '=', 'recurring-plans')
          .execute();
        assert.equal(await restart().tick(), false);
        clock.forward(6);
      }
      if (i === 10) continue; // down on the day: caught up on the next one
      assert.equal(await current.tick(), true, `period ${i}`);
      // Runs again the same day: nothing new.
      clock.forward(16);
      await current.tick();
    }
    await restart().tick();

    const done = await master(m.id);
    assert.equal(done.children.length, 12);
    assert.deepEqual(
      done.children.map((c: any) => c.service_period_start),
      periods,
    );
    assert.ok(done.children.every((c: any) => c.status === 'booked'));
    assert.deepEqual(
      done.auto_runs.map((r: any) => [r.period_start, r.state]),
      periods.map((p) => [p, 'queued']),
    );
    const numbers = await numbersOf(done);
    assert.equal(new Set(numbers).size, 12);
    const got = await delivered(numbers);
    assert.equal(got.length, 12, 'one message per invoice');
    assert.deepEqual(new Set(got.map((g) => g.mail.messageId)).size, 12);
    for (const c of done.children) {
      const msgs = (await api.get(`/outgoing-invoices/${c.id}/messages`)).body.data;
      assert.equal(msgs.length, 1);
      assert.equal(msgs[0].status, 'sent');
    }
    const events = await ctx.db
      .selectFrom('events')
      .select(['kind', 'resource_id'])
      .where('resource_type', '=', 'outgoing_invoice')
      .where(
        'resource_id',
        'in',
        done.children.map((c: any) => c.id),
      )
      .execute();
    for (const kind of ['invoice:created', 'invoice:booked'])
      assert.equal(events.filter((e) => e.kind === kind).length, 12, kind);
    const sent = await ctx.db
      .selectFrom('events')
      .select('kind')
      .where('resource_type', '=', 'mail_message')
      .where(
        'resource_id',
        'in',
        done.auto_runs.map((r: any) => r.mail_message_id),
      )
      .execute();
    assert.deepEqual(
      sent.map((e) => e.kind),
      Array(12).fill('invoice:sent'),
    );
  });

  it('two schedulers racing on one database make and send each period once', async () => {
    const m = await plan();
    const { periods } = yearFrom(m.plan_start);
    const second = ctx.kind === 'postgres' ? connectAgain(ctx.handle) : undefined;
    try {
      for (const day of periods) {
        // Past their leases: both run the whole of it at once, each on its own connection.
        await Promise.all([
          runRecurringPlans(ctx.db, day, { queue: queueTo(), logger: silentLogger }),
          runRecurringPlans(second?.db ?? ctx.db, day, { queue: queueTo(), logger: silentLogger }),
        ]);
      }
      const clock = clockAt(periods.at(-1)!);
      const [a, b] = [job(clock), job(clock, { db: second?.db ?? ctx.db })];
      const ran = await Promise.all([a.tick(), b.tick()]);
      assert.equal(ran.filter(Boolean).length, 1, 'the lease lets one of them run');
    } finally {
      await second?.destroy();
    }
    const done = await master(m.id);
    assert.equal(done.children.length, 12);
    assert.ok(done.auto_runs.every((r: any) => r.state === 'queued'));
    const numbers = await numbersOf(done);
    assert.equal((await delivered(numbers)).length, 12);
  });

  /** Each plan made its one invoice, booked, queued and delivered once. */
  const eachOnce = async (ids: number[]) => {
    for (const id of ids) {
      const done = await master(id);
      assert.equal(done.children.length, 1, `plan ${id}`);
      assert.equal(done.children[0].status, 'booked');
      assert.deepEqual(
        done.auto_runs.map((r: any) => r.state),
        ['queued'],
      );
      const numbers = await numbersOf(done);
      assert.equal((await delivered(numbers)).length, 1, `plan ${id}: one message`);
    }
  };

  it('a run whose lease another process takes over while sending stops; the other sends the rest once', async () => {
    const ids = [(await plan()).id, (await plan()).id, (await plan()).id];
    const clock = clockAt(todayIso());
    const second = ctx.kind === 'postgres' ? connectAgain(ctx.handle) : undefined;
    let sends = 0;
    let taking: Promise<boolean> | undefined;
    const stalling: QueueInvoice = (db, auth, id) => {
      sends++;
      // The first send stalls past the lease; another process takes the job meanwhile.
      clock.forward(RECURRING_PLANS.leaseMs / 60_000 + 1);
      taking ??= job(clock, { db: second?.db }).tick();
      return queueTo()(db, auth, id);
    };
    try {
      assert.equal(await job(clock, { queue: stalling }).tick(), false, 'the first run stopped');
      assert.equal(sends, 1, 'no send after the lease was lost');
      assert.equal(await taking, true, 'the other ran it to the end');
    } finally {
      await second?.destroy();
    }
    await eachOnce(ids);
  });

  it('a run whose lease is lost between plans stops before the next; the job then makes each invoice once', async () => {
    const ids = [(await plan()).id, (await plan()).id, (await plan()).id];
    let looks = 0;
    // Held for the first plan only.
    const lease = { held: () => looks++ < 1 };
    const first = await runRecurringPlans(
      ctx.db,
      todayIso(),
      { queue: queueTo(), logger: silentLogger },
      lease,
    );
    assert.deepEqual(first, { periods: 1, queued: 0, errors: 0 });
    assert.equal((await master(ids[0]!)).children.length, 1);
    assert.equal((await master(ids[1]!)).children.length, 0, 'not made after the lease was lost');
    assert.equal(await job(clockAt(todayIso())).tick(), true);
    await eachOnce(ids);
  });

  it('POST …/generate and the scheduler share the periods: none is made twice', async () => {
    const m = await plan();
    const { periods } = yearFrom(m.plan_start);
    const gen = await api.post(`/outgoing-invoices/${m.id}/generate`);
    assert.equal(gen.status, 200, gen.text);
    assert.equal(gen.body.data.children.length, 12);
    // One draft deleted, one booked by hand before their dates.
    const [, second, third] = gen.body.data.children;
    assert.equal((await api.delete(`/outgoing-invoices/${second.id}`)).status, 204);
    assert.equal((await api.post(`/outgoing-invoices/${third.id}/book`, {})).status, 200);
    const clock = clockAt(periods[0]!);
    for (const day of periods.slice(0, 4)) {
      clock.at(day);
      await job(clock).tick();
    }
    // Generate again between the scheduler's runs: still one invoice per period.
    assert.equal((await api.post(`/outgoing-invoices/${m.id}/generate`)).status, 200);
    const done = await master(m.id);
    assert.equal(done.children.length, 11);
    assert.deepEqual(
      done.auto_runs.map((r: any) => [r.period_start, r.state]),
      [
        [periods[0], 'queued'],
        [periods[1], 'skipped'],
        [periods[2], 'skipped'],
        [periods[3], 'queued'],
      ],
    );
    assert.match(done.auto_runs[1].reason, /deleted/);
    assert.match(done.auto_runs[2].reason, /booked/);
    assert.deepEqual(
      done.auto_runs.map((r: any) => r.invoice_id),
      gen.body.data.children.slice(0, 4).map((c: any) => c.id),
    );
    assert.equal((await api.get(`/outgoing-invoices/${third.id}/messages`)).body.data.length, 0);
  });

  it('without a mail relay the invoices are booked and the plan says why they were not sent', async () => {
    const m = await plan();
    const clock = clockAt(m.plan_start);
    assert.equal(await job(clock, { queue: null }).tick(), true);
    const done = await master(m.id);
    assert.equal(done.children.length, 1);
    assert.equal(done.children[0].status, 'booked');
    assert.equal(done.auto_runs[0].state, 'booked');
    assert.match(done.auto_runs[0].reason, /mail_not_configured/);
    assert.equal((await api.get(`/outgoing-invoices/${done.children[0].id}/messages`)).body.data.length, 0);
  });

  it('a client without an e-mail address: booked, not sent, the reason recorded', async () => {
    const clientId = await makeClient(api);
    const m = await plan({ client_id: clientId });
    const clock = clockAt(m.plan_start);
    await job(clock).tick();
    const run = (await master(m.id)).auto_runs[0];
    assert.equal(run.state, 'booked');
    assert.match(run.reason, /no recipient/);
  });

  it('auto_generate without auto_send makes drafts; only periods not ended when it was turned on', async () => {
    // Started 14 months ago: the periods before today are history, not a backlog to send.
    const start = addDays(todayIso(), -430);
    const m = await plan({ plan_start: start, plan_end: addDays(todayIso(), 400), auto_send: false });
    const clock = clockAt(todayIso());
    await job(clock).tick();
    const done = await master(m.id);
    assert.equal(done.children.length, 1);
    assert.ok(done.children[0].service_period_start <= todayIso());
    assert.ok(done.children[0].service_period_end >= todayIso());
    assert.equal(done.children[0].status, 'open');
    assert.equal(done.auto_runs[0].state, 'generated');
  });

  it('create and PATCH: auto_send needs auto_generate; only recurring plans take them', async () => {
    const bad = expectProblem(
      await api.post('/outgoing-invoices/recurring-plans', {
        type: 'recurring1',
        client_id: await makeClient(api),
        plan_start: '2026-01-01',
        plan_end: '2026-12-31',
        auto_send: true,
        line_items: [line(10)],
      }),
      422,
      'validation_failed',
    );
    assert.deepEqual(
      bad.errors?.map((e) => e.field),
      ['auto_send'],
    );
    const m = await plan({ auto_generate: false, auto_send: false });
    assert.equal(m.auto_generate, false);
    assert.equal(m.auto_from, null);
    assert.deepEqual(m.auto_runs, []);
    expectProblem(
      await api.patch(`/outgoing-invoices/${m.id}`, { auto_send: true }),
      422,
      'validation_failed',
    );
    const on = await api.patch(`/outgoing-invoices/${m.id}`, { auto_generate: true, auto_send: true });
    assert.equal(on.status, 200, on.text);
    assert.equal(on.body.data.auto_generate, true);
    assert.equal(on.body.data.auto_send, true);
    assert.equal((await master(m.id)).auto_from, todayIso());
    const off = expectProblem(await api.patch(`/outgoing-invoices/${m.id}`, { auto_generate: false }), 422);
    assert.deepEqual(
      off.errors?.map((e) => e.field),
      ['auto_generate'],
    );
    const both = await api.patch(`/outgoing-invoices/${m.id}`, { auto_generate: false, auto_send: false });
    assert.equal(both.status, 200, both.text);
    assert.equal((await master(m.id)).auto_from, null);
    expectProblem(await api.patch(`/outgoing-invoices/${m.id}`, { auto_send: 'yes' }), 422);

    const inv = await makeInvoice(api, { client_id: await makeClient(api), line_items: [line(10)] });
    assert.equal(inv.auto_generate, undefined);
    const refused = expectProblem(
      await api.patch(`/outgoing-invoices/${inv.id}`, { auto_generate: true }),
      422,
    );
    assert.deepEqual(
      refused.errors?.map((e) => e.field),
      ['auto_generate'],
    );
    const partial = await api.post('/outgoing-invoices/partial-plans', {
      client_id: await makeClient(api),
      line_items: [line(10)],
    });
    assert.equal(partial.status, 201, partial.text);
    assert.equal(partial.body.data.auto_generate, false);
    expectProblem(await api.patch(`/outgoing-invoices/${partial.body.data.id}`, { auto_send: false }), 422);
  });

  it('the background work runs the scheduler unless RECURRING_AUTO_RUN=false', async () => {
    const { loadConfig } = await import('../src/config.js');
    assert.equal(loadConfig({}).recurringAutoRun, true);
    assert.equal(loadConfig({ RECURRING_AUTO_RUN: 'false' }).recurringAutoRun, false);
  });
});
