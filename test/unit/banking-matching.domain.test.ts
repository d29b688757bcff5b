import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type Candidate,
  creditorReference,
  decide,
  type MatchLine,
  numberPattern,
  referencesIn,
} from '../../src/modules/banking/matching.domain.js';

const inv = (
  id: number,
  number: string,
  client_id: number,
  open: number,
  extra: Partial<Candidate> = {},
): Candidate => ({
  id,
  number,
  client_id,
  currency: 'EUR',
  open,
  exact: true,
  ...extra,
});

const INVOICES: Candidate[] = [
  inv(1, 'RE-2026-0042', 1, 11900),
  inv(2, 'RE-2026-0043', 1, 11900),
  inv(3, 'RE-2026-1042', 2, 5000),
  inv(4, '1001', 3, 10000),
  // Another series with the same digits as invoice 1.
  inv(5, 'AR-2026-0042', 4, 11900),
  // Paid already.
  inv(6, 'RE-2026-0099', 5, 0),
  inv(7, 'RE-2026-0100', 6, 7000, { exact: false }),
];

const line = (amount: number, remittance: string | null, extra: Partial<MatchLine> = {}): MatchLine => ({
  amount,
  currency: 'EUR',
  remittance,
  creditor_reference: null,
  end_to_end_id: null,
  counterparty_iban: null,
  ...extra,
});

const IBAN_1 = 'DE89370400440532013000';

describe('matching: automatic only when certain', () => {
  const table: [string, MatchLine, [number, number][] | null, number[]?][] = [
    ['number and exact amount', line(11900, 'Rechnung RE-2026-0042'), [[1, 11900]]],
    ['spaces for dashes', line(11900, 'RE 2026 0042 danke'), [[1, 11900]]],
    ['lower case, no separators', line(11900, 're20260042'), [[1, 11900]]],
    ['leading zeros left out', line(11900, 'RE-2026-42'), [[1, 11900]]],
    ['prefix cut: two series have these digits', line(11900, 'Rg. 2026-0042'), null],
    ['the other series named in full', line(11900, 'AR-2026-0042'), [[5, 11900]]],
    ['a longer number is another number', line(11900, 'RE-2026-00421'), null],
    [
      'two numbers of one client, their sum',
      line(23800, 'RE-2026-0042, RE-2026-0043'),
      [
        [1, 11900],
        [2, 11900],
      ],
    ],
    ['two numbers, the amount of one', line(11900, 'RE-2026-0042 RE-2026-0043'), null],
    ['numbers of two clients, their sum', line(16900, 'RE-2026-0042 RE-2026-1042'), null],
    ['amount alone (three invoices have it)', line(11900, 'payment'), null],
    ['plain number and amount', line(10000, 'Invoice 1001'), [[4, 10000]]],
    ['plain number inside a longer one', line(10000, 'Order 10012'), null],
    ['plain number in a date', line(10000, 'vom 10.01.2026'), null],
    ['plain number, other amount', line(5000, 'Invoice 1001'), null],
    ['number, partial amount', line(5000, 'RE-2026-0042'), null],
    ['number, more than open', line(12000, 'RE-2026-0042'), null],
    ['number of a paid invoice', line(11900, 'RE-2026-0099'), null],
    ['open amount not read exactly', line(7000, 'RE-2026-0100'), null],
    ['other currency', line(5000, 'RE-2026-1042', { currency: 'USD' }), null],
    ['money out', line(-11900, 'RE-2026-0042'), null],
    [
      'structured reference, partial amount',
      line(2000, null, { creditor_reference: creditorReference('RE-2026-1042')! }),
      [[3, 2000]],
    ],
    [
      'structured reference typed into the text',
      line(5000, `ref ${creditorReference('RE-2026-1042')}`),
      [[3, 5000]],
    ],
    [
      'structured reference, more than open',
      line(6000, null, { creditor_reference: creditorReference('RE-2026-1042')! }),
      null,
    ],
    ['reference with wrong check digits', line(5000, null, { creditor_reference: 'RF00RE20261042' }), null],
    ['number in the end-to-end id', line(5000, null, { end_to_end_id: 'RE-2026-1042' }), [[3, 5000]]],
  ];
  for (const [what, l, expected] of table) {
    it(what, () => {
      const d = decide(l, INVOICES, []);
      assert.deepEqual(d.auto?.map((a) => [a.invoice_id, a.amount]) ?? null, expected);
    });
  }

  it('a known IBAN: one client, one open invoice of that amount', () => {
    assert.deepEqual(decide(line(5000, 'thanks', { counterparty_iban: IBAN_1 }), INVOICES, [2]).auto, [
      { invoice_id: 3, amount: 5000 },
    ]);
    // Two invoices of the client have the amount; two clients share the IBAN; not read exactly.
    assert.equal(decide(line(11900, null, { counterparty_iban: IBAN_1 }), INVOICES, [1]).auto, null);
    assert.equal(decide(line(5000, null, { counterparty_iban: IBAN_1 }), INVOICES, [2, 3]).auto, null);
    assert.equal(decide(line(7000, null, { counterparty_iban: IBAN_1 }), INVOICES, [6]).auto, null);
  });

  it('what is not certain is a ranked suggestion with its reasons', () => {
    const d = decide(line(11900, 'RE-2026-0042 RE-2026-0043'), INVOICES, []);
    assert.deepEqual(
      d.suggestions.map((s) => [s.invoice_id, s.reasons]),
      [
        [1, ['number_in_text', 'amount_equal']],
        [2, ['number_in_text', 'amount_equal']],
        [5, ['amount_equal']],
      ],
    );
    assert.deepEqual(decide(line(5000, 'RE-2026-0042'), INVOICES, []).suggestions[0], {
      invoice_id: 1,
      amount: 5000,
      score: 50,
      reasons: ['number_in_text'],
    });
  });
});

describe('references and numbers', () => {
  it('ISO 11649 creditor references: the standard’s example, and found in texts', () => {
    assert.equal(creditorReference('539007547034'), 'RF18539007547034');
    assert.deepEqual(referencesIn('Zahlung RF18 5390 0754 7034 danke'), ['RF18539007547034']);
    assert.deepEqual(referencesIn('RF19539007547034'), []);
    assert.equal(creditorReference('x'.repeat(22)), null);
  });

  it('short plain numbers are no evidence', () => {
    assert.equal(numberPattern('42'), null);
    assert.equal(numberPattern('0042'), null);
    assert.ok(numberPattern('RE-42')!.full.test('RE 42'));
    assert.equal(numberPattern('RE-42')!.cut, null);
  });
});
