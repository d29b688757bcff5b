import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { it } from 'node:test';
import { pgArrayLiteral } from '../../src/db/pg-array.js';

/** pg's own encoder of a parameter (not part of its typed interface). */
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as {
  prepareValue(v: unknown): unknown;
};

it('pgArrayLiteral writes plain values as a PostgreSQL array literal', () => {
  const cases: Array<[unknown[], string]> = [
    [[], '{}'],
    [[1, -2, 0], '{1,-2,0}'],
    [[12345678901234n], '{12345678901234}'],
    [[null, undefined, 3], '{NULL,NULL,3}'],
    [[true, false], '{true,false}'],
    // Every string quoted: NULL, empty, blanks, commas and braces stay text.
    [['NULL', '', ' a ', 'a,b', '{x}'], '{"NULL",""," a ","a,b","{x}"}'],
    [['say "hi"', 'C:\\dir\\', '\\"'], '{"say \\"hi\\"","C:\\\\dir\\\\","\\\\\\""}'],
    [['Müller €', '日本'], '{"Müller €","日本"}'],
    [['2026-11-29', '95.50'], '{"2026-11-29","95.50"}'],
  ];
  for (const [values, literal] of cases)
    assert.equal(pgArrayLiteral(values), literal, values.map(String).join(' | '));
});

it('pgArrayLiteral reads back as what pg itself would send (its own quoting of each element)', () => {
  // pg quotes numbers too ("1"); PostgreSQL reads both to the same array of the column type.
  const unquote = (s: string) => s.replace(/"(-?\d+)"/g, '$1');
  for (const values of [
    ['a', 'b "c"', 'd\\e', null, ''],
    [1, 2, null, 4],
  ])
    assert.equal(pgArrayLiteral(values), unquote(String(prepareValue(values))));
});

it('pgArrayLiteral leaves values of other kinds to pg (undefined)', () => {
  for (const v of [new Date(0), Buffer.from('x'), { a: 1 }, [1], Symbol('s')])
    assert.equal(pgArrayLiteral(['ok', v]), undefined);
});
