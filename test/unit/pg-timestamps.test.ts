import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { utcIso } from '../../src/db/index.js';

// PostgreSQL's text of timestamps, turned into the API's RFC 3339 strings by moving characters:
// the same string `Date` gives, or undefined where the text is one Date must read.
describe('PostgreSQL timestamps as RFC 3339 UTC strings', () => {
  const cases: Array<[string, '' | '+00', string | undefined]> = [
    ['2026-11-27 13:37:25.123456+00', '+00', '2026-11-27T13:37:25.123Z'],
    ['2026-11-27 13:37:25.1+00', '+00', '2026-11-27T13:37:25.100Z'],
    ['2026-11-27 13:37:25+00', '+00', '2026-11-27T13:37:25.000Z'],
    ['2026-11-27 13:37:25.999999+00', '+00', '2026-11-27T13:37:25.999Z'],
    ['2026-11-27 13:37:25.12', '', '2026-11-27T13:37:25.120Z'],
    ['2026-11-27 13:37:25+01', '+00', undefined],
    ['2026-11-27 13:37:25+00', '', undefined],
    ['2026-11-27 13:37:25', '+00', undefined],
    ['infinity', '+00', undefined],
    ['12026-11-27 13:37:25+00', '+00', undefined],
    ['0044-03-15 12:00:00+00 BC', '+00', undefined],
  ];
  for (const [text, offset, expected] of cases)
    it(`${text} (${offset || 'no offset'})`, () => assert.equal(utcIso(text, offset), expected));

  it('gives what Date gives, for 100,000 random instants with microseconds', () => {
    for (let i = 0; i < 100_000; i++) {
      const iso = new Date(Math.floor(Math.random() * 4e12)).toISOString();
      const fraction =
        `${iso.slice(20, 23)}${String(Math.floor(Math.random() * 1000)).padStart(3, '0')}`.replace(/0+$/, '');
      const text = `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction ? `.${fraction}` : ''}`;
      assert.equal(utcIso(`${text}+00`, '+00'), new Date(`${text}+00`).toISOString(), text);
      assert.equal(utcIso(text, ''), new Date(`${text.replace(' ', 'T')}Z`).toISOString(), text);
    }
  });
});
