import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { compiledByShape } from '../src/db/prepared.js';
import { describeEachDb } from './helpers.js';

/**
 * `compiledByShape` (src/db/prepared.ts), which the one-statement creates use on PostgreSQL:
 * Kysely builds and compiles a statement once per shape, and every call sends that text with
 * its own values.
 */
describeEachDb('statements compiled once per shape', (t) => {
  if (t.kind !== 'postgres') return;

  it('builds once per shape, sends each call its own values, and refuses a parameter it cannot place', async () => {
    const built: string[] = [];
    const run = compiledByShape(
      ['a', 'b'],
      (s: { op: string }) => s.op,
      (db, s, p) => {
        built.push(s.op);
        return sql<{ r: number }>`select (${p.a}::int ${sql.raw(s.op)} ${p.b}::int) as r`.compile(db);
      },
    );
    assert.deepEqual(await run(t.db, { op: '+' }, { a: 2, b: 3 }), [{ r: 5 }]);
    assert.deepEqual(await run(t.db, { op: '+' }, { a: 10, b: -4 }), [{ r: 6 }]);
    assert.deepEqual(await run(t.db, { op: '*' }, { b: 3, a: 7 }), [{ r: 21 }]);
    assert.deepEqual(built, ['+', '*']);

    const stray = compiledByShape(
      ['a'],
      () => 'one',
      (db, _s, p) => sql`select ${p.a}::int + ${1}::int`.compile(db),
    );
    await assert.rejects(stray(t.db, {}, { a: 1 }), /not a named one/);
  });
});
