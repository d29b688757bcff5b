import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import type { DbHandle } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { createIntegration } from '../src/modules/integration/integration.service.js';
import { addClient, addEfforts, addProject } from './billing.fixtures.js';
import { createAccount, createTestDb, PG_URL, type TestAccount, urlOf } from './helpers.js';
import { waitFor } from './webhooks.support.js';

/**
 * Double billing across processes: the service as an operator runs it on PostgreSQL with
 * `WORKERS=2` (two server processes, each with its own connection pool), ten concurrent
 * invoices over the same efforts. The database's unique effort link decides: one invoice,
 * nine 409, no effort on two invoices, no invoice left behind by a loser.
 */
describe('invoices from efforts under WORKERS=2 on PostgreSQL', {
  skip: !PG_URL && 'needs TEST_DATABASE_URL',
}, () => {
  let handle: DbHandle;
  let account: TestAccount;
  let token: string;

  before(async () => {
    handle = await createTestDb('postgres');
    await migrateToLatest(handle.db);
    account = await createAccount(handle.db);
    ({ access_token: token } = await createIntegration(handle.db, {
      name: 'billing race',
      scopes: ['outgoing-invoice:write', 'outgoing-invoice:read', 'efforts:read'],
      accountId: account.accountId,
      userId: account.users.admin,
    }));
  });
  after(async () => handle.destroy());

  it('ten concurrent calls over the same efforts: one 201, nine 409 effort_already_billed', async () => {
    const clientId = await addClient(handle.db, account.accountId);
    const projectId = await addProject(handle.db, account.accountId, clientId, { hourly_rate: 9500 });
    const ids = await addEfforts(
      handle.db,
      account.accountId,
      Array.from({ length: 30 }, (_, i) => ({
        project_id: projectId,
        task_id: null,
        user_id: account.users.admin,
        date: `2026-10-${String(1 + (i % 28)).padStart(2, '0')}`,
        minutes: 15 + i,
        billable: true,
        type: 'work',
        hourly_rate: null,
      })),
    );

    const out: string[] = [];
    const child = spawn('npm', ['start', '--silent'], {
      env: {
        ...process.env,
        DATABASE_URL: urlOf(handle),
        PORT: '0',
        HOST: '127.0.0.1',
        WORKERS: '2',
        SEED_DEMO: 'false',
        LOG_LEVEL: 'info',
        SECRET_KEY: 'billing-workers-test-secret-key-0123456789',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (c: Buffer) => out.push(...c.toString('utf8').split('\n')));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      let port = 0;
      await waitFor(
        'the two server processes to listen',
        () => {
          for (const line of out) {
            try {
              const l = JSON.parse(line) as { msg?: string; port?: number };
              if (l.msg === 'server processes listening' && l.port) port = l.port;
            } catch {}
          }
          return port > 0;
        },
        90_000,
      );
      const body = JSON.stringify({
        project_id: projectId,
        date_from: '2026-10-01',
        date_to: '2026-10-31',
        effort_ids: ids,
      });
      // A connection each (no keep-alive), so the two processes share the calls.
      const answers = await Promise.all(
        Array.from({ length: 10 }, () =>
          fetch(`http://127.0.0.1:${port}/api/v1/outgoing-invoices/from-efforts`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${token}`,
              'content-type': 'application/json',
              connection: 'close',
            },
            body,
          }).then(async (r) => ({ status: r.status, body: (await r.json()) as { code?: string } })),
        ),
      );
      assert.deepEqual(
        answers.map((a) => a.status).sort(),
        [201, 409, 409, 409, 409, 409, 409, 409, 409, 409],
        JSON.stringify(answers),
      );
      for (const a of answers.filter((x) => x.status === 409))
        assert.equal(a.body.code, 'effort_already_billed');
    } finally {
      child.kill('SIGTERM');
      await exited;
    }

    const links = await handle.db
      .selectFrom('invoice_efforts')
      .select(['effort_id', 'invoice_id'])
      .where('effort_id', 'in', ids)
      .execute();
    assert.equal(links.length, 30, 'every effort billed once');
    assert.equal(new Set(links.map((l) => l.invoice_id)).size, 1);
    const invoices = await handle.db
      .selectFrom('outgoing_invoices')
      .select('id')
      .where('project_id', '=', projectId)
      .execute();
    assert.equal(invoices.length, 1, 'the losers left no invoice behind');
  });
});
