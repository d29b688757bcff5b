import assert from 'node:assert/strict';
import { it } from 'node:test';
import { type Clock, DunningScheduler } from '../src/modules/dunning/dunning.public.js';
import { connectAgain, createAccount, describeEachDb, type TestContext } from './helpers.js';
import { ALL_INVOICE_SCOPES, bookNow, line, makeClient, makeInvoice } from './invoicing.fixtures.js';

/** A clock standing on a day until moved. */
const clockAt = (day: string): Clock & { set(day: string): void } => {
  let ms = Date.parse(`${day}T06:00:00Z`);
  return { now: () => ms, set: (d) => (ms = Date.parse(`${d}T06:00:00Z`)) };
};

async function overdueAccount(ctx: TestContext) {
  const acc = await createAccount(ctx.db);
  const api = await ctx.as([...ALL_INVOICE_SCOPES, 'dunning:read'], { userId: acc.users.admin });
  const inv = await makeInvoice(api, {
    client_id: await makeClient(api),
    date: '2026-03-02',
    due_date: '2026-03-16',
    line_items: [line(1000)],
  });
  await bookNow(api, inv.id);
  return { acc, api, inv };
}

const letters = async (api: any) => (await api.get('/dunnings')).body.data.map((l: any) => [l.level, l.date]);

describeEachDb('dunning: the scheduled daily run', (ctx) => {
  it('runs each account once a day, each level on its day', async () => {
    const { api } = await overdueAccount(ctx);
    const clock = clockAt('2026-03-22');
    const scheduler = new DunningScheduler(ctx.db, { clock });
    assert.ok((await scheduler.round()) >= 1);
    assert.deepEqual(await letters(api), []);
    assert.equal(await scheduler.round(), 0, 'the day ran already');
    clock.set('2026-03-23');
    await scheduler.round();
    assert.deepEqual(await letters(api), [[1, '2026-03-23']]);
    clock.set('2026-04-06');
    await scheduler.round();
    assert.deepEqual(await letters(api), [
      [1, '2026-03-23'],
      [2, '2026-04-06'],
    ]);
  });

  it('two schedulers share the work; a day a dead worker held is taken over after its lease', async () => {
    const { acc, api } = await overdueAccount(ctx);
    const clock = clockAt('2026-03-23');
    const second = ctx.kind === 'postgres' ? connectAgain(ctx.handle) : undefined;
    try {
      const a = new DunningScheduler(ctx.db, { clock });
      const b = new DunningScheduler(second?.db ?? ctx.db, { clock });
      await Promise.all([a.round(), b.round()]);
      assert.deepEqual(await letters(api), [[1, '2026-03-23']]);

      // A worker claimed the next day and died: its lease holds the day until it runs out.
      const db = ctx.db as any;
      clock.set('2026-04-06');
      const leaseUntil = new Date(clock.now() + 60_000).toISOString();
      await db
        .updateTable('dunning_jobs')
        .set({ lease_until: leaseUntil, lease_token: 'dead' })
        .where('account_id', '=', acc.accountId)
        .execute();
      await a.round();
      assert.equal((await letters(api)).length, 1, 'the lease holds the account');
      clock.set('2026-04-06');
      const later: Clock = { now: () => clock.now() + 120_000 };
      await new DunningScheduler(ctx.db, { clock: later }).round();
      assert.deepEqual((await letters(api)).at(-1), [2, '2026-04-06']);
    } finally {
      await second?.destroy();
    }
  });

  it('the background work starts the scheduler only with DUNNING_AUTO_RUN', async () => {
    const { loadConfig } = await import('../src/config.js');
    assert.equal(loadConfig({}).dunningAutoRun, false);
    assert.equal(loadConfig({ DUNNING_AUTO_RUN: 'true' }).dunningAutoRun, true);
  });
});
