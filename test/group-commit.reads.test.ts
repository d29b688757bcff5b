import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { Kysely } from 'kysely';
import { prepared } from '../src/db/prepared.js';
import type { Database } from '../src/db/schema.js';
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
});
