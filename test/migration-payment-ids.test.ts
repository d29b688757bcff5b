import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { type Migration, Migrator } from 'kysely';
import type { DbHandle } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { nextPaymentId } from '../src/modules/payments/payments.repository.js';
import { createTestDb, DB_KINDS } from './helpers.js';

const dir = new URL('../src/db/migrations/', import.meta.url);
const MIGRATION = '2026_11_22_950_payment_ids';

/** Migrates a fresh database up to (not including) the payment id migration. */
async function migrateBefore(db: DbHandle['db']) {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.ts')).sort();
  const names = files.map((f) => f.replace(/\.ts$/, ''));
  const previous = names.filter((n) => n < MIGRATION).at(-1)!;
  const migrator = new Migrator({
    db,
    allowUnorderedMigrations: true,
    provider: {
      async getMigrations() {
        const out: Record<string, Migration> = {};
        for (const f of files) out[f.replace(/\.ts$/, '')] = await import(new URL(f, dir).href);
        return out;
      },
    },
  });
  const { error } = await migrator.migrateTo(previous);
  if (error) throw error;
}

for (const kind of DB_KINDS) {
  describe(`migration 950: one payment id space, existing rows kept [${kind}]`, () => {
    let handle: DbHandle;
    const db = () => handle.db as any;
    before(async () => {
      handle = await createTestDb(kind);
      await migrateBefore(handle.db);
    });
    after(() => handle.destroy());

    it('moves incoming payments off the ids of outgoing ones and shares one counter from then on', async () => {
      const account = (
        await db().insertInto('accounts').values({ name: 'Before' }).returning('id').executeTakeFirstOrThrow()
      ).id;
      const invoice = (
        await db()
          .insertInto('outgoing_invoices')
          .values({ account_id: account, type: 'invoice', status: 'booked', currency: 'EUR' })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
      const doc = (
        await db()
          .insertInto('incoming_invoices')
          .values({ account_id: account, document_type: 'Invoice', gross_total: 10000, paid_total: 700 })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
      for (const amount of [100, 200, 300])
        await db()
          .insertInto('payments')
          .values({
            account_id: account,
            type: 'outgoing_invoice',
            invoice_id: invoice,
            amount,
            currency: 'EUR',
            date: '2026-01-02',
          })
          .execute();
      for (const [amount, reference] of [
        [300, 'first'],
        [400, 'second'],
      ] as const) {
        const p = await db()
          .insertInto('incoming_payments')
          .values({ account_id: account, type: 'payment', amount, date: '2026-02-03', reference })
          .returning('id')
          .executeTakeFirstOrThrow();
        await db()
          .insertInto('incoming_payment_allocations')
          .values({ account_id: account, incoming_payment_id: p.id, incoming_invoice_id: doc, amount })
          .execute();
      }
      const before = await db().selectFrom('incoming_payments').select('id').orderBy('id').execute();
      assert.deepEqual(
        before.map((r: { id: number }) => r.id),
        [1, 2],
        'the overlap the migration resolves',
      );

      await migrateToLatest(handle.db);

      const outgoing = await db().selectFrom('payments').select(['id', 'amount']).orderBy('id').execute();
      assert.deepEqual(
        outgoing.map((r: any) => [r.id, Number(r.amount)]),
        [
          [1, 100],
          [2, 200],
          [3, 300],
        ],
      );
      const incoming = await db()
        .selectFrom('incoming_payments as p')
        .innerJoin('incoming_payment_allocations as a', 'a.incoming_payment_id', 'p.id')
        .select([
          'p.id',
          'p.amount',
          'p.reference',
          'p.date',
          'p.type',
          'a.incoming_invoice_id',
          'a.amount as share',
        ])
        .orderBy('p.id')
        .execute();
      assert.deepEqual(
        incoming.map((r: any) => [
          r.id,
          Number(r.amount),
          r.reference,
          r.date,
          r.type,
          r.incoming_invoice_id,
          Number(r.share),
        ]),
        [
          [4, 300, 'first', '2026-02-03', 'payment', doc, 300],
          [5, 400, 'second', '2026-02-03', 'payment', doc, 400],
        ],
      );
      assert.equal(
        Number((await db().selectFrom('incoming_payment_allocations').select('id').execute()).length),
        2,
      );
      assert.equal(await nextPaymentId(handle.db), 6);
    });
  });
}
