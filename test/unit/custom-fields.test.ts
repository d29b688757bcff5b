import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkCustomFieldValue } from '../../src/modules/custom-fields/custom-fields.service.js';

const select = { type: 'select', options: ['web', 'mobile'] };
const def = (type: string) => ({ type, options: [] });

describe('checkCustomFieldValue', () => {
  const cases: [string, { type: string; options: string[] }, unknown, boolean][] = [
    ['text accepts a string', def('text'), 'hello', true],
    ['text accepts an empty string', def('text'), '', true],
    ['text refuses a number', def('text'), 5, false],
    ['text refuses 10001 characters', def('text'), 'x'.repeat(10_001), false],
    ['number accepts an integer', def('number'), 3, true],
    ['number accepts a decimal', def('number'), 2.5, true],
    ['number accepts a negative', def('number'), -1, true],
    ['number refuses a numeric string', def('number'), '3', false],
    ['number refuses a boolean', def('number'), true, false],
    ['date accepts YYYY-MM-DD', def('date'), '2026-02-28', true],
    ['date accepts a leap day', def('date'), '2028-02-29', true],
    ['date refuses 30 February', def('date'), '2026-02-30', false],
    ['date refuses a timestamp', def('date'), '2026-02-01T00:00:00Z', false],
    ['date refuses a number', def('date'), 20260201, false],
    ['boolean accepts true', def('boolean'), true, true],
    ['boolean accepts false', def('boolean'), false, true],
    ['boolean refuses "true"', def('boolean'), 'true', false],
    ['boolean refuses 1', def('boolean'), 1, false],
    ['select accepts an option', select, 'mobile', true],
    ['select is case-sensitive', select, 'Web', false],
    ['select refuses another value', select, 'fax', false],
    ['select refuses a non-string', select, 1, false],
    ['an unknown type refuses everything', def('color'), '#fff', false],
  ];
  for (const [name, definition, value, ok] of cases) {
    it(name, () => {
      const problem = checkCustomFieldValue(definition, value);
      assert.equal(problem === null, ok, String(problem));
    });
  }

  it('names the options of a select in its message', () => {
    assert.equal(checkCustomFieldValue(select, 'fax'), 'must be one of: web, mobile');
  });
});
