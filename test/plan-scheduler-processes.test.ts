import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import type { DbHandle } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { addMonths } from '../src/modules/outgoing-invoices/invoices.domain.js';
import { createRecurringPlan, schedulerAuth } from '../src/modules/outgoing-invoices/plans.service.js';
import { todayIso } from '../src/shared/time.js';
import { addClient } from './billing.fixtures.js';
import { createAccount, createTestDb, PG_URL, urlOf } from './helpers.js';
import { Relay } from './mail.support.js';
import { sleep, waitFor } from './webhooks.support.js';

/**
 * Recurring plans run by the service as an operator runs it on PostgreSQL: two services on one
 * database, `npm start` with `WORKERS=2` (its supervisor runs the plans' scheduler and the mail
 * worker) and `npm start` with one process (which runs both itself), started at once on a plan
 * a year behind. The database decides: each of the 12 periods made, booked and sent once,
 * through a real SMTP server.
 */
describe('recurring plans in two services on PostgreSQL, one with WORKERS=2', {
  skip: !PG_URL && 'needs TEST_DATABASE_URL',
}, () => {
  let handle: DbHandle;
  let relay: Relay;
  let port: number;

  before(async () => {
    handle = await createTestDb('postgres');
    await migrateToLatest(handle.db);
    relay = new Relay();
    port = await relay.start();
  });
  after(async () => {
    await relay.stop();
    await handle.destroy();
  });

  it('catches up a year at once in two processes: 12 invoices, 12 messages', async () => {
    const account = await createAccount(handle.db);
    const clientId = await addClient(handle.db, account.accountId, { email: 'ap@client.example' });
    const start = addMonths(todayIso(), -11);
    const plan = await createRecurringPlan(handle.db, schedulerAuth(account.accountId), {
      type: 'recurring1',
      client_id: clientId,
      title: 'Hosting',
      plan_start: start,
      plan_end: addMonths(start, 12),
      auto_generate: true,
      auto_send: true,
      line_items: [{ title: 'Hosting', quantity: 1, unit_price: 49.9, tax_rate: 19 }],
    });
    // Switched on a year ago and never run since (the service was down): 12 periods are due.
    await handle.db
      .updateTable('outgoing_invoices')
      .set({ auto_from: start })
      .where('id', '=', plan.id)
      .execute();

    const env = {
      ...process.env,
      DATABASE_URL: urlOf(handle),
      PORT: '0',
      HOST: '127.0.0.1',
      SEED_DEMO: 'false',
      LOG_LEVEL: 'info',
      SECRET_KEY: 'plan-scheduler-test-secret-key-0123456789',
      SMTP_URL: `smtp://127.0.0.1:${port}`,
      MAIL_FROM: 'plans@mailer.example',
    };
    const children: ChildProcess[] = [
      spawn('npm', ['start', '--silent'], { env: { ...env, WORKERS: '2' }, stdio: 'ignore' }),
      spawn('npm', ['start', '--silent'], { env: { ...env, WORKERS: '1' }, stdio: 'ignore' }),
    ];
    const exits = children.map((c) => new Promise((resolve) => c.once('exit', resolve)));
    const sent = () => relay.accepted.filter((r) => r.to.includes('ap@client.example'));
    try {
      await waitFor('12 messages at the relay', () => sent().length >= 12, 120_000);
      // Anything sent twice would arrive now.
      await sleep(3000);
    } finally {
      for (const c of children) c.kill('SIGTERM');
      await Promise.all(exits);
    }

    assert.equal(sent().length, 12);
    assert.equal(new Set(sent().map((r) => r.mail.subject)).size, 12, 'one message per invoice');
    const invoices = await handle.db
      .selectFrom('outgoing_invoices')
      .select(['id', 'status', 'service_period_start'])
      .where('master_id', '=', plan.id)
      .execute();
    assert.equal(invoices.length, 12);
    assert.equal(new Set(invoices.map((i) => i.service_period_start)).size, 12);
    assert.ok(invoices.every((i) => i.status === 'booked'));
    const runs = await handle.db
      .selectFrom('plan_runs')
      .select('state')
      .where('master_id', '=', plan.id)
      .execute();
    assert.deepEqual(
      runs.map((r) => r.state),
      Array(12).fill('queued'),
    );
    const messages = await handle.db
      .selectFrom('mail_messages')
      .select(['document_id', 'status'])
      .where(
        'document_id',
        'in',
        invoices.map((i) => i.id),
      )
      .execute();
    assert.equal(messages.length, 12);
    assert.ok(messages.every((m) => m.status === 'sent'));
  });
});
