import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { retentionJob } from '../src/retention.js';
import { silentLogger } from '../src/shared/job-loop.js';
import { type Api, countRows, describeEachDb, expectProblem } from './helpers.js';
import { line, makeClient, makeInvoice } from './invoicing.fixtures.js';
import { record } from './webhooks.support.js';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const YEAR = 365 * DAY;

interface Entry {
  cursor: string;
  resource: string;
  id: number;
  action: string;
}

/**
 * The change feed's window (docs/changes.md#the-window-and-resync) on both databases, with the
 * retention job's clock injected: entries and events older than the window go, a cursor before
 * the last pruned entry answers 410 `cursor_expired`, and both resyncs it names lose nothing.
 * The audit log and bookkeeping documents stay, even ten years on.
 */
describeEachDb('change feed window', (ctx) => {
  let api: Api;
  let t = Date.now();
  const clock = { now: () => new Date(t) };

  /** Reads the feed to its end; on PostgreSQL waits until `want` entries show (older transactions). */
  async function drain(after: string | undefined, want: (es: Entry[]) => boolean = () => true) {
    const entries: Entry[] = [];
    let cursor = after;
    for (let tries = 0; ; ) {
      const res = await api.get(`/changes?limit=1000${cursor ? `&after=${cursor}` : ''}`);
      assert.equal(res.status, 200, res.text);
      entries.push(...res.body.data);
      cursor = res.body.meta.next_cursor;
      if (res.body.meta.has_more) continue;
      if (want(entries) || ++tries > 200) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    return { entries, cursor: cursor! };
  }
  const has = (id: number) => (es: Entry[]) => es.some((e) => e.resource === 'client' && e.id === id);
  const clientIds = (es: Entry[]) => es.filter((e) => e.resource === 'client').map((e) => e.id);

  /** Runs the retention job (an hour apart each time) until the account's horizon moved. */
  async function prune(days: number) {
    const horizon = async () =>
      ctx.db
        .selectFrom('change_log_horizons')
        .select(['xid', 'id'])
        .where('account_id', '=', ctx.account.accountId)
        .executeTakeFirst();
    const old = JSON.stringify(await horizon());
    for (let tries = 0; tries < 50; tries++) {
      t += HOUR;
      assert.equal(
        await retentionJob(ctx.db, silentLogger, { changeFeedRetentionDays: days, clock }).tick(),
        true,
      );
      // PostgreSQL prunes only entries of transactions older than every running one.
      if (JSON.stringify(await horizon()) !== old) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail('the horizon did not move');
  }

  let oldA: number;
  let oldB: number;
  let young: number;
  let beforeAll: string;
  let afterOld: string;

  before(async () => {
    api = await ctx.as('client:read client:write outgoing-invoice:read outgoing-invoice:write integration');
    oldA = await makeClient(api, { name: 'Old A' });
    oldB = await makeClient(api, { name: 'Old B' });
    const first = await drain(undefined, has(oldB));
    beforeAll = first.entries[0]!.cursor; // still before oldB's entry
    afterOld = first.cursor;
    // The old clients' entries are 100 days old; the window is 90 days.
    await ctx.db
      .updateTable('change_log')
      .set({ changed_at: new Date(t - 100 * DAY).toISOString() })
      .where('account_id', '=', ctx.account.accountId)
      .execute();
    young = await makeClient(api, { name: 'Young' });
    await drain(afterOld, has(young));
  });

  it('prunes entries older than the window; a cursor before them answers 410 cursor_expired', async () => {
    const other = await ctx.as('client:read', { accountId: ctx.other.accountId });
    await prune(90);
    const kept = await ctx.db
      .selectFrom('change_log')
      .select(['resource', 'resource_id'])
      .where('account_id', '=', ctx.account.accountId)
      .execute();
    assert.deepEqual(
      kept.filter((r) => r.resource === 'client').map((r) => r.resource_id),
      [young],
    );

    for (const path of [`/changes?after=${beforeAll}`, '/changes']) {
      const gone = expectProblem(await api.get(path), 410, 'cursor_expired') as unknown as Record<
        string,
        unknown
      >;
      assert.equal(gone.type, '/problems/cursor-expired');
      assert.equal(typeof gone.cursor, 'string');
      assert.equal(typeof gone.latest_cursor, 'string');
    }
    // A reader that polled within the window goes on as before.
    assert.deepEqual(clientIds((await drain(afterOld)).entries), [young]);
    // Another account lost nothing of its own: its feed starts as ever.
    assert.equal((await other.get('/changes')).status, 200);
    // The problem's page is served like the others.
    const page = await ctx.app.inject({ url: '/problems/cursor-expired' });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /cursor_expired/);
  });

  it('resync: read the lists, then follow from `cursor` or from `latest_cursor`; nothing is lost', async () => {
    const gone = expectProblem(
      await api.get(`/changes?after=${beforeAll}`),
      410,
      'cursor_expired',
    ) as unknown as {
      cursor: string;
      latest_cursor: string;
    };
    const list = await api.get('/clients/full?per_page=100');
    assert.equal(list.status, 200);
    const ids = list.body.data.map((c: { id: number }) => c.id);
    for (const id of [oldA, oldB, young]) assert.ok(ids.includes(id), `the list has ${id}`);
    const later = await makeClient(api, { name: 'After the 410' });

    const fromKept = await drain(gone.cursor, has(later));
    assert.deepEqual(clientIds(fromKept.entries), [young, later], 'replays the window, then goes on');
    const fromNow = await drain(gone.latest_cursor, has(later));
    assert.deepEqual(clientIds(fromNow.entries), [later], 'only what changed after the 410');
    assert.equal((await api.get(`/changes?after=${fromNow.cursor}`)).status, 200);
  });

  it('events go with the window unless a webhook delivery still names them', async () => {
    const hooks = await ctx.as('task-management:read integration');
    const hook = await hooks.post('/webhooks', { url: 'http://127.0.0.1:9/hook', scopes: ['task:create'] });
    assert.equal(hook.status, 201, hook.text);
    const delivered = await record(ctx.db, ctx.account.accountId, 'task:created', { id: 1 });
    const lonely = await record(ctx.db, ctx.account.accountId, 'client:created', { id: 2 });
    const fresh = await record(ctx.db, ctx.account.accountId, 'client:created', { id: 3 });
    await ctx.db
      .updateTable('events')
      .set({ occurred_at: new Date(t - 100 * DAY).toISOString() })
      .where('id', 'in', [delivered, lonely])
      .execute();
    t += HOUR;
    assert.equal(await retentionJob(ctx.db, silentLogger, { clock }).tick(), true);
    const left = await ctx.db
      .selectFrom('events')
      .select('id')
      .where('id', 'in', [delivered, lonely, fresh])
      .orderBy('id')
      .execute();
    assert.deepEqual(
      left.map((e) => e.id),
      [delivered, fresh],
    );
  });

  it('never prunes the audit log or bookkeeping documents, even ten years on', async () => {
    const client = await makeClient(api, { name: 'Bookkeeping' });
    await makeInvoice(api, { client_id: client, line_items: [line(100)] });
    const tables = ['audit_log', 'outgoing_invoices', 'payments', 'incoming_invoices', 'incoming_payments'];
    const counts = async () => Promise.all(tables.map((table) => countRows(ctx.db, table)));
    const before = await counts();
    assert.ok(before[1]! > 0, 'an invoice to keep');
    t += 10 * YEAR - DAY;
    assert.equal(
      await retentionJob(ctx.db, silentLogger, {
        changeFeedRetentionDays: 1,
        webhookDeliveryRetentionDays: 1,
        clock,
      }).tick(),
      true,
    );
    assert.deepEqual(await counts(), before);
  });
});
