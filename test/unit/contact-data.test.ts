import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decideExternalId } from '../../src/shared/external-id.js';
import { fold } from '../../src/shared/search.js';

describe('decideExternalId', () => {
  // [current, requested, holder (another record holding `requested`), force, expected]
  const cases: [string | null, string | null, number | undefined, boolean, unknown][] = [
    [null, 'a', undefined, false, { kind: 'set', clearHolder: false }],
    [null, 'a', undefined, true, { kind: 'set', clearHolder: false }],
    ['a', 'a', undefined, false, { kind: 'unchanged' }],
    [null, null, undefined, false, { kind: 'unchanged' }],
    ['a', 'b', undefined, false, { kind: 'refused', code: 'external_id_set' }],
    ['a', 'b', undefined, true, { kind: 'set', clearHolder: false }],
    ['a', null, undefined, false, { kind: 'refused', code: 'external_id_set' }],
    ['a', null, undefined, true, { kind: 'set', clearHolder: false }],
    [null, 'a', 7, false, { kind: 'refused', code: 'external_id_taken' }],
    [null, 'a', 7, true, { kind: 'set', clearHolder: true }],
    // Both rules apply: the replacement is reported first; force overrides both.
    ['b', 'a', 7, false, { kind: 'refused', code: 'external_id_set' }],
    ['b', 'a', 7, true, { kind: 'set', clearHolder: true }],
  ];
  for (const [current, requested, holder, force, expected] of cases) {
    it(`${current} -> ${requested}, holder ${holder ?? 'none'}, force ${force}`, () => {
      assert.deepEqual(decideExternalId(current, requested, holder, force), expected);
    });
  }
});

describe('fold', () => {
  const cases: [string | null | undefined, string][] = [
    ['Ada LOVELACE', 'ada lovelace'],
    ['MÜLLER', 'müller'],
    ['Mu\u0308ller', 'müller'], // decomposed ü folds to the composed form
    ['ÇA VA', 'ça va'],
    ['50%_*', '50%_*'],
    [null, ''],
    [undefined, ''],
  ];
  for (const [input, expected] of cases) {
    it(`${JSON.stringify(input)} -> ${JSON.stringify(expected)}`, () => assert.equal(fold(input), expected));
  }
});
