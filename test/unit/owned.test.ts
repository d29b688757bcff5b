import assert from 'node:assert/strict';
import { it } from 'node:test';
import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, sql } from 'kysely';
import type { Db } from '../../src/db/index.js';
import { AppError } from '../../src/shared/errors.js';
import { findOwned, insertRowsReturning, orNotFound, ownedRowQuery } from '../../src/shared/owned.js';
import '../../src/modules/suppliers/suppliers.tables.js';

/** Compiles queries without a database (DummyDriver answers every query with no rows). */
const db = new Kysely({
  dialect: {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new SqliteIntrospector(k),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  },
}) as unknown as Db;

it('ownedRowQuery is the hand-written select of one row of one account', () => {
  const handWritten = db
    .selectFrom('suppliers')
    .selectAll()
    .where('account_id', '=', 7)
    .where('id', '=', 3)
    .compile();
  const owned = ownedRowQuery(db, 'suppliers', 7, 3).compile();
  assert.equal(owned.sql, handWritten.sql);
  assert.deepEqual(owned.parameters, handWritten.parameters);
});

it('findOwned answers undefined when there is no row; orNotFound makes that a 404', async () => {
  const row = await findOwned(db, 'suppliers', 7, 3);
  assert.equal(row, undefined);
  assert.throws(
    () => orNotFound(row, 'Supplier'),
    (e: unknown) => e instanceof AppError && e.message === 'Supplier not found',
  );
  const found = { id: 3 };
  assert.equal(orNotFound(found, 'Supplier'), found);
});

it('insertRowsReturning sends what Kysely builds from the same rows, prepared or not', async () => {
  const sent: Array<{ sql: string; parameters: readonly unknown[] }> = [];
  const recording = new Kysely({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => {
        const driver = new DummyDriver();
        driver.acquireConnection = async () => ({
          executeQuery: async (q) => {
            sent.push({ sql: q.sql, parameters: q.parameters });
            return { rows: [] };
          },
          streamQuery: () => {
            throw new Error('not used');
          },
        });
        return driver;
      },
      createIntrospector: (k) => new SqliteIntrospector(k),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  }) as unknown as Db;
  const expression = sql<string>`lower('X')`;
  const cases: Array<[string, Record<string, unknown>[]]> = [
    ['one row', [{ account_id: 1, name: 'A', city: null }]],
    [
      'two rows of one shape',
      [
        { account_id: 1, name: 'A' },
        { account_id: 1, name: 'B' },
      ],
    ],
    [
      'the same shape again, other values',
      [
        { account_id: 2, name: 'C' },
        { account_id: 2, name: 'D' },
      ],
    ],
    ['a value left out', [{ account_id: 1, name: 'A', city: undefined }]],
    [
      'left out in one row only',
      [
        { account_id: 1, name: 'A', city: undefined },
        { account_id: 1, name: 'B', city: 'K' },
      ],
    ],
    [
      'keys in another order',
      [
        { account_id: 1, name: 'A' },
        { name: 'B', account_id: 1 },
      ],
    ],
    ['an expression', [{ account_id: 1, name: expression }]],
  ];
  for (const [label, rows] of cases) {
    sent.length = 0;
    await insertRowsReturning(recording, 'suppliers', rows as never);
    const kysely = recording
      .insertInto('suppliers')
      .values(rows as never)
      .returningAll()
      .compile();
    assert.deepEqual(sent, [{ sql: kysely.sql, parameters: kysely.parameters }], label);
  }
});
