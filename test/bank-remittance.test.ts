import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCamt } from '../src/modules/banking/camt.domain.js';
import { type Candidate, decide, type MatchLine } from '../src/modules/banking/matching.domain.js';
import { parseMt940 } from '../src/modules/banking/mt940.domain.js';
import { joinRemittance } from '../src/modules/banking/statement.domain.js';
import { camt, mt940 } from './bank.fixtures.js';

const L35 = 'Rechnung Nr. RE-2026-00 und weite'.padEnd(35, 'x');

describe('remittance cut into lines: joined without a space inside a number', () => {
  const table: [string, string[], number, string][] = [
    [
      'a number cut at a full CAMT line',
      ['Zahlung fuer Rechnung RE-2026-00012', '3 danke'],
      35,
      'Zahlung fuer Rechnung RE-2026-000123 danke',
    ],
    [
      'digits on both sides of a full line',
      ['Rechnung Nr. 2026/4711 und 2026/471', '2 vielen Dank'],
      35,
      'Rechnung Nr. 2026/4711 und 2026/4712 vielen Dank',
    ],
    ['a short part ends a number of its own', ['Rechnung 4711', '4712'], 35, 'Rechnung 4711 4712'],
    [
      'letters at the joint: a space (separators are allowed there)',
      ['Zahlung fuer Rechnung Nummer RE-ABC', 'D-99 Kd 123'],
      35,
      'Zahlung fuer Rechnung Nummer RE-ABC D-99 Kd 123',
    ],
    ['a digit after a full line of letters', [L35, '4711'], 35, `${L35} 4711`],
    [
      'MT940 lines of 27',
      ['EREF NOTPROVIDED RE-2026-00', '123 Danke'],
      27,
      'EREF NOTPROVIDED RE-2026-00123 Danke',
    ],
    ['one part', ['RE-2026-00123'], 35, 'RE-2026-00123'],
    ['no parts', [], 35, ''],
  ];
  for (const [what, parts, width, expected] of table)
    it(what, () => assert.equal(joinRemittance(parts, width), expected));

  it('a CAMT whose Ustrd is cut every 35 characters names the invoice', () => {
    const text = 'Zahlung fuer Rechnung Nr RE-2026-000123 vom 03.11.2026 vielen Dank';
    assert.equal(text.slice(0, 35).at(-1), '0', 'the cut falls inside the number');
    const xml = camt(
      '053',
      {
        iban: 'DE02120300000000202051',
        id: 'S1',
        opening: 0,
        from: '2026-11-02',
        to: '2026-11-02',
        entries: [{ booking: '2026-11-02', amount: -11900, text, ref: 'R1' }],
      },
      { version: '02', splitUstrd: true },
    );
    const [statement] = parseCamt(xml);
    assert.equal(statement!.entries[0]!.remittance, text);
  });

  it('an MT940 without SEPA tags, purpose cut every 27 characters', () => {
    const file = mt940([
      {
        iban: 'DE02120300000000202051',
        id: 'S2',
        opening: 0,
        from: '2026-11-02',
        to: '2026-11-02',
        entries: [{ booking: '2026-11-02', amount: -5000, text: 'Rechnung 2026-4711', ref: 'R2' }],
      },
    ]);
    const [statement] = parseMt940(file);
    assert.match(statement!.entries[0]!.remittance ?? '', /2026-4711/);
  });
});

const inv = (id: number, number: string, supplier: number, open: number): Candidate => ({
  id,
  number,
  client_id: supplier,
  currency: 'EUR',
  reference: null,
  open,
  exact: true,
});
const out = (amount: number, remittance: string, iban: string | null = null): MatchLine => ({
  amount,
  currency: 'EUR',
  remittance,
  creditor_reference: null,
  end_to_end_id: null,
  counterparty_iban: iban,
});
/** Suppliers' numbers: two suppliers both number an invoice 1001; a look-alike of ours. */
const SUPPLIER_INVOICES: Candidate[] = [
  inv(1, '1001', 1, 5000),
  inv(2, '1001', 2, 5000),
  inv(3, 'R-2026-00815', 3, 23800),
  inv(4, 'INV/2026/123', 4, 11900),
  inv(5, 'INV/2026/124', 4, 2380),
  inv(6, '20260042', 5, 4990),
  inv(7, '20260043', 5, 4990),
];
const IBAN_1 = 'DE89370400440532013000';
const IBAN_3 = 'DE75512108001245126199';

describe('money out against incoming invoices: automatic only when certain', () => {
  const table: [string, MatchLine, number[], [number, number][] | null][] = [
    ['the supplier’s number and the open amount', out(23800, 'Rechnung R-2026-00815'), [], [[3, 23800]]],
    ['leading zeros and separators left out', out(23800, 'RE R2026815 Kd 4711'), [], [[3, 23800]]],
    ['a number two suppliers have: not certain', out(5000, 'Rechnung 1001'), [], null],
    ['… unless the IBAN names one of them', out(5000, 'Rechnung 1001', IBAN_1), [1], [[1, 5000]]],
    ['the IBAN names another supplier: vetoed', out(23800, 'R-2026-00815', IBAN_3), [1], null],
    [
      'two invoices of one supplier, their sum',
      out(14280, 'INV/2026/123 + INV/2026/124'),
      [],
      [
        [4, 11900],
        [5, 2380],
      ],
    ],
    ['a partial payment by number: a suggestion', out(10000, 'INV/2026/123'), [], null],
    ['the IBAN and the only invoice of that amount', out(23800, 'Danke', IBAN_3), [3], [[3, 23800]]],
    ['the IBAN and two invoices of that amount', out(4990, 'Abo', IBAN_3), [5], null],
    ['a salary names no invoice', out(250000, 'Gehalt 11/2026'), [], null],
  ];
  for (const [what, l, parties, expected] of table) {
    it(what, () => {
      const d = decide(l, SUPPLIER_INVOICES, parties, undefined, { strictParty: true });
      assert.deepEqual(d.auto?.map((a) => [a.invoice_id, a.amount]) ?? null, expected);
    });
  }

  it('what is not certain is ranked with its reasons', () => {
    const d = decide(out(5000, 'Rechnung 1001'), SUPPLIER_INVOICES, [], undefined, { strictParty: true });
    assert.deepEqual(
      d.suggestions.map((s) => [s.invoice_id, s.reasons]),
      [
        [1, ['number_in_text', 'amount_equal']],
        [2, ['number_in_text', 'amount_equal']],
      ],
    );
  });
});
