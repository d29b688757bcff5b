import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import pg from 'pg';
import { groupCommitOf } from '../src/db/group-commit.js';
import { transactOne } from '../src/db/transact.js';
import { countRows, describeEachDb } from './helpers.js';

/**
 * `transactOne` (src/db/transact.ts): a write of one statement. On PostgreSQL outside a
 * transaction it is sent alone, without BEGIN and COMMIT; on SQLite it joins the group commit;
 * inside a transaction it is a savepoint of it. POST /clients without a shortcode or external
 * id is such a write.
 */
describeEachDb('one-statement writes', (t) => {
  // What the PostgreSQL connections of this process are sent, while `sent` is an array.
  let sent: string[] | undefined;
  const query = pg.Client.prototype.query;
  before(() => {
    pg.Client.prototype.query = function (this: pg.Client, q: unknown, ...rest: unknown[]) {
      sent?.push(typeof q === 'string' ? q : String((q as { text: string }).text));
      return (query as (...a: unknown[]) => unknown).call(this, q, ...rest);
    } as typeof query;
  });
  after(() => {
    pg.Client.prototype.query = query;
  });

  it('POST /clients without checks: its INSERT and its event, nothing read, on PostgreSQL; a group commit on SQLite; the feed and the count follow', async () => {
    const api = await t.as('client:write client:read');
    const before = (await api.get('/clients')).body.meta.total as number;
    const feed = await countRows(t.db, 'change_log');
    const batches = groupCommitOf(t.db)?.batches ?? 0;
    sent = [];
    const res = await api.post('/clients', { name: 'One statement', email: 'one@example.com' });
    const statements = sent;
    sent = undefined;
    assert.equal(res.status, 201);
    assert.equal(res.body.data.name, 'One statement');
    if (t.kind === 'postgres') {
      // The client and its client:created event commit together (creates arriving at once
      // share the transaction: db/insert-batch.ts); nothing is read before them.
      // The auth epoch's read (with the table versions) answers the token, not the write.
      const writes = statements.filter((s) => !/^select "value", .* from "auth_epoch"$/s.test(s));
      assert.deepEqual(
        writes.map((w) => /^(begin|commit|insert into "\w+")/i.exec(w)?.[1] ?? w),
        ['begin', 'insert into "clients"', 'insert into "events"', 'commit'],
        writes.join('\n'),
      );
    } else {
      assert.equal(groupCommitOf(t.db)!.batches, batches + 1);
    }
    assert.equal((await api.get('/clients')).body.meta.total, before + 1);
    assert.equal(await countRows(t.db, 'change_log'), feed + 1);
    assert.equal((await api.get(`/clients/${res.body.data.id}`)).body.data.email, 'one@example.com');
  });

  it('with a shortcode it still checks in a transaction: 409 for a taken one, nothing written', async () => {
    const api = await t.as('client:write client:read');
    assert.equal((await api.post('/clients', { name: 'A', shortcode: 'ONE' })).status, 201);
    const rows = await countRows(t.db, 'clients');
    const res = await api.post('/clients', { name: 'B', shortcode: 'ONE' });
    assert.equal(res.status, 409);
    assert.equal(await countRows(t.db, 'clients'), rows);
  });

  it('inside a transaction it is part of it: rolled back with it', async () => {
    const rows = await countRows(t.db, 'clients');
    await assert.rejects(
      t.db.transaction().execute(async (trx) => {
        await transactOne(trx, (db) =>
          db
            .insertInto('clients')
            .values({ account_id: t.account.accountId, name: 'Rolled back' })
            .executeTakeFirstOrThrow(),
        );
        assert.equal(await countRows(trx, 'clients'), rows + 1);
        throw new Error('undo');
      }),
      /undo/,
    );
    assert.equal(await countRows(t.db, 'clients'), rows);
  });
});
