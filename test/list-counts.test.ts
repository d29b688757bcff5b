// Kept list counts (issue 15) stay exact with many connections writing one account at once:
// on PostgreSQL each session adds to a shard of its own (migration 2026_11_24_100), and the
// count read is the sum of the shards, negative ones included.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { DbHandle } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { keptTotal } from '../src/shared/list-counts.js';
import { createTestDb, DB_KINDS } from './helpers.js';

const SHARDS_MIGRATION = '2026_11_24_100_list_count_shards';

for (const kind of DB_KINDS) {
  describe(`kept list counts under concurrent writers [${kind}]`, () => {
    let handle: DbHandle;
    let account: number;
    before(async () => {
      handle = await createTestDb(kind);
      await migrateToLatest(handle.db);
      const row = await handle.db
        .insertInto('accounts')
        .values({ name: 'counts', currency: 'EUR', settings: '{}' })
        .returning('id')
        .executeTakeFirstOrThrow();
      account = row.id;
    });
    after(() => handle.destroy());

    const real = async () => {
      const r = await handle.db
        .selectFrom('clients')
        .select((eb) => [
          eb.fn.countAll<number>().as('total'),
          eb.fn.count<number>('id').filterWhere('archived_at', 'is', null).as('active'),
        ])
        .where('account_id', '=', account)
        .executeTakeFirstOrThrow();
      return { total: Number(r.total), active: Number(r.active) };
    };
    const kept = async () => ({
      total: await keptTotal(handle.db, account, 'clients', true)(),
      active: await keptTotal(handle.db, account, 'clients', false)(),
    });

    /** One writer: creates, archives every third, deletes every fifth, each in a transaction. */
    const writer = async (tag: number, n: number) => {
      for (let i = 0; i < n; i++)
        await handle.db.transaction().execute(async (trx) => {
          const { id } = await trx
            .insertInto('clients')
            .values({ account_id: account, name: `w${tag} ${i}` })
            .returning('id')
            .executeTakeFirstOrThrow();
          // Hold the transaction open a moment, so that the writers overlap.
          if (kind === 'postgres') await sql`select pg_sleep(0.002)`.execute(trx);
          if (i % 3 === 0)
            await trx
              .updateTable('clients')
              .set({ archived_at: new Date().toISOString() })
              .where('id', '=', id)
              .execute();
          if (i % 5 === 0) await trx.deleteFrom('clients').where('id', '=', id).execute();
        });
    };

    it('totals equal the rows after concurrent creates, archivals and deletes', async () => {
      // Ten at once: as many as the pool holds connections.
      await Promise.all(Array.from({ length: 10 }, (_, t) => writer(t, 20)));
      // Archived and deleted afterwards by other sessions than the ones that created them.
      const ids = (
        await handle.db.selectFrom('clients').select('id').where('account_id', '=', account).execute()
      ).map((r) => r.id);
      await Promise.all(
        ids
          .slice(0, 40)
          .map((id, i) =>
            i % 2
              ? handle.db.deleteFrom('clients').where('id', '=', id).execute()
              : handle.db.updateTable('clients').set({ archived_at: null }).where('id', '=', id).execute(),
          ),
      );
      const want = await real();
      assert.deepEqual(await kept(), want);
      assert.ok(want.total > 100);
    });

    it('one INSERT of rows of two accounts counts each account and logs each row once, in id order', async () => {
      const other = (
        await handle.db
          .insertInto('accounts')
          .values({ name: 'counts 2', currency: 'EUR', settings: '{}' })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
      const before = await kept();
      const archived = new Date().toISOString();
      const rows = await handle.db
        .insertInto('clients')
        .values([
          { account_id: account, name: 'one statement 1' },
          { account_id: other, name: 'one statement 2' },
          { account_id: account, name: 'one statement 3', archived_at: archived },
          { account_id: other, name: 'one statement 4', archived_at: archived },
          { account_id: account, name: 'one statement 5' },
        ])
        .returning(['id', 'account_id'])
        .execute();
      assert.deepEqual(await kept(), { total: before.total + 3, active: before.active + 2 });
      assert.deepEqual(await kept(), await real());
      assert.equal(await keptTotal(handle.db, other, 'clients', true)(), 2);
      assert.equal(await keptTotal(handle.db, other, 'clients', false)(), 1);
      const log = await handle.db
        .selectFrom('change_log')
        .select(['account_id', 'resource_id', 'action'])
        .where('resource', '=', 'client')
        .where(
          'resource_id',
          'in',
          rows.map((r) => r.id),
        )
        .orderBy('id')
        .execute();
      const ids = rows.map((r) => Number(r.id)).sort((a, b) => a - b);
      assert.deepEqual(
        log.map((l) => [Number(l.resource_id), l.action]),
        ids.map((id) => [id, 'created']),
      );
      const accountOf = new Map(rows.map((r) => [Number(r.id), Number(r.account_id)]));
      for (const l of log) assert.equal(Number(l.account_id), accountOf.get(Number(l.resource_id)));
    });

    if (kind === 'postgres')
      it('concurrent sessions write shards of their own, and rolling the migration back folds them', async () => {
        const shards = await handle.db
          .selectFrom('list_counts')
          .select('shard')
          .where('account_id', '=', account)
          .where('resource', '=', 'clients')
          .execute();
        assert.ok(shards.length > 1, `writers shared one shard: ${JSON.stringify(shards)}`);
        const want = await real();
        const m = await import(`../src/db/migrations/${SHARDS_MIGRATION}.ts`);
        await m.down(handle.db);
        const folded = await sql<{ total: number; active: number }>`
          select total, active from list_counts where account_id = ${account} and resource = 'clients'`.execute(
          handle.db,
        );
        assert.deepEqual(
          folded.rows.map((r) => ({ total: Number(r.total), active: Number(r.active) })),
          [want],
        );
        await m.up(handle.db);
        await writer(99, 5);
        assert.deepEqual(await kept(), await real());
      });
  });
}
