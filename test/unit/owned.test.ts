import assert from 'node:assert/strict';
import { it } from 'node:test';
import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from 'kysely';
import type { Db } from '../../src/db/index.js';
import { AppError } from '../../src/shared/errors.js';
import { findOwned, orNotFound, ownedRowQuery } from '../../src/shared/owned.js';
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
