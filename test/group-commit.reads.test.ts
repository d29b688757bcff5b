import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { Kysely } from 'kysely';
import { prepared } from '../src/db/prepared.js';
import type { Database } from '../src/db/schema.js';
import { transact } from '../src/db/transact.js';
import { insertReturning } from '../src/shared/owned.js';
import { type Api, describeEachDb } from './helpers.js';

/**
 * Reads by key made together (db/prepared.ts): on PostgreSQL they go as one query, and each
 * caller still gets exactly its own rows — including none, and never another tenant's.
 */
describeEachDb('batched reads by key', (ctx) => {
  let api: Api;
  let mine: { id: number; name: string }[];
  let theirs: number[];

  before(async () => {
    api = await ctx.as('client:read');
    const insert = (accountId: number, n: number, tag: string) =>
      ctx.db
        .insertInto('clients')
        .values(Array.from({ length: n }, (_, i) => ({ account_id: accountId, name: `${tag} ${i}` })))
        .returning(['id', 'name'])
        .execute();
    mine = await insert(ctx.account.accountId, 25, 'Batched');
    theirs = (await insert(ctx.other.accountId, 5, 'Other tenant')).map((r) => r.id);
  });

  it('answers each of many concurrent GET /clients/{id} with its own client, 404 for the rest', async () => {
    const ids = [...mine.map((c) => c.id), ...theirs, 999_999];
    const answers = await Promise.all(ids.map((id) => api.get(`/clients/${id}`)));
    for (const [i, res] of answers.entries()) {
      const client = mine[i];
      if (client) {
        assert.equal(res.status, 200, res.text);
        assert.deepEqual([res.body.data.id, res.body.data.name], [client.id, client.name]);
      } else assert.equal(res.status, 404, `id ${ids[i]}`);
    }
  });

  it('a statement whose parameter cannot travel in a typed array still answers, one query each', async () => {
    // created_at is a timestamp on PostgreSQL: compared with a text array it has no operator.
    const since = prepared(2, (db: Kysely<Database>, accountId: number, after: string) =>
      db
        .selectFrom('clients')
        .select('id')
        .where('account_id', '=', accountId)
        .where('created_at', '>=', after),
    );
    const results = await Promise.all([
      since(ctx.db, ctx.account.accountId, '2000-01-01T00:00:00.000Z'),
      since(ctx.db, ctx.account.accountId, '2999-01-01T00:00:00.000Z'),
      since(ctx.db, ctx.other.accountId, '2000-01-01T00:00:00.000Z'),
    ]);
    assert.ok(results[0]!.length >= mine.length);
    assert.equal(results[1]!.length, 0);
    assert.deepEqual(results[2]!.map((r) => r.id).sort(), [...theirs].sort());
  });

  it('prepared statements in a transaction: its own writes are seen there, nowhere else, and undone with it', async () => {
    const byName = prepared(2, (db: Kysely<Database>, accountId: number, name: string) =>
      db
        .selectFrom('clients')
        .select(['id', 'name'])
        .where('account_id', '=', accountId)
        .where('name', '=', name),
    );
    const accountId = ctx.account.accountId;
    let outside: unknown[] | undefined;
    const failed = await transact(ctx.db, async (trx) => {
      const row = await insertReturning(trx, 'clients', {
        account_id: accountId,
        name: 'Prepared in a transaction',
      });
      assert.deepEqual(await byName(trx, accountId, row.name), [{ id: row.id, name: row.name }]);
      // A read on the database itself must not see the uncommitted row: on SQLite it waits
      // for the connection, i.e. for this transaction to end.
      const pending = byName(ctx.db, accountId, row.name).then((rows) => {
        outside = rows;
      });
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(outside === undefined || outside.length === 0, true, 'no dirty read');
      throw Object.assign(new Error('undo'), { pending });
    }).catch((err: { pending: Promise<void> }) => err);
    await failed.pending;
    assert.deepEqual(outside, []);
    assert.deepEqual(await byName(ctx.db, accountId, 'Prepared in a transaction'), []);
    // A value for a column the table lacks is refused, never dropped.
    await assert.rejects(
      () => insertReturning(ctx.db, 'clients', { account_id: accountId, name: 'x', nonexistent: 1 } as never),
      /nonexistent/,
    );
  });
});
