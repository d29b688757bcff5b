import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type Candidate,
  creditorReference,
  decide,
  type MatchLine,
  numberPattern,
  referencesIn,
  relevantInvoices,
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
  // The only open invoice of its client with its amount.
  inv(8, 'RE-2026-0077', 7, 4990),
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
    ['number and exact amount', line(4990, 'Rechnung RE-2026-0077'), [[8, 4990]]],
    ['spaces for dashes', line(4990, 'RE 2026 0077 danke'), [[8, 4990]]],
    ['lower case, no separators', line(4990, 're20260077'), [[8, 4990]]],
    ['leading zeros left out', line(4990, 'RE-2026-77'), [[8, 4990]]],
    ['number and amount, the client has another invoice of it', line(11900, 'RE-2026-0042'), null],
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

describe('matching: a number in the text is no evidence between invoices of equal amounts', () => {
  // A party with three open invoices, two of them of equal amounts (a monthly fee), and
  // another party with one of that amount.
  const FEES: Candidate[] = [
    inv(11, 'R-2026-00394', 1, 5699),
    inv(12, 'R-2026-00395', 1, 5699),
    inv(13, 'R-2026-00396', 1, 12000),
    inv(14, 'R-2026-00397', 1, 3000),
    inv(15, 'AB-98001', 2, 5699),
    inv(16, 'AB-98002', 2, 7000),
  ];
  const rf = creditorReference('R-2026-00395')!;
  const IBAN_1 = 'DE89370400440532013000';
  type Row = [string, MatchLine, number[], [number, number][] | null, number | null];
  const table: Row[] = [
    // [what, line, parties of the IBAN, automatic allocations, first suggestion]
    [
      'number and amount, a twin of the party open: suggested first',
      line(5699, 'RE R-2026-00395'),
      [],
      null,
      12,
    ],
    [
      '… with the IBAN known for the party too',
      line(5699, 'R-2026-00395', { counterparty_iban: IBAN_1 }),
      [1],
      null,
      12,
    ],
    ['… the other number: the other one first', line(5699, 'R-2026-00394'), [], null, 11],
    [
      'the structured reference decides between twins',
      line(5699, null, { creditor_reference: rf }),
      [],
      [[12, 5699]],
      12,
    ],
    ['an RF reference typed in the text too', line(5699, `Zahlung ${rf}`), [], [[12, 5699]], 12],
    ['number and amount, no twin (another party has it)', line(5699, 'AB-98001'), [], [[15, 5699]], 15],
    ['number and amount without a twin of that amount', line(12000, 'R-2026-00396'), [], [[13, 12000]], 13],
    [
      'both twins named, their sum',
      line(11398, 'R-2026-00394 + R-2026-00395'),
      [],
      [
        [11, 5699],
        [12, 5699],
      ],
      11,
    ],
    [
      'two numbers, their sum, a twin of one not named',
      line(17699, 'R-2026-00395 R-2026-00396'),
      [],
      null,
      12,
    ],
    [
      'two numbers, their sum, no twins',
      line(15000, 'R-2026-00396, R-2026-00397'),
      [],
      [
        [13, 12000],
        [14, 3000],
      ],
      13,
    ],
  ];
  for (const [what, l, parties, expected, first] of table) {
    for (const strictParty of [false, true]) {
      it(`${what} (${strictParty ? 'money out' : 'money in'})`, () => {
        const d = decide(l, FEES, parties, undefined, { strictParty });
        assert.deepEqual(d.auto?.map((a) => [a.invoice_id, a.amount]) ?? null, expected);
        assert.equal(d.suggestions[0]?.invoice_id ?? null, first);
      });
    }
  }

  it('a party whose open amounts are not all read exactly is not certain', () => {
    const party = [inv(21, 'AB-98101', 3, 5000), inv(22, 'AB-98102', 3, 7000, { exact: false })];
    assert.equal(decide(line(5000, 'AB-98101'), party, []).auto, null);
    assert.deepEqual(decide(line(5000, 'AB-98101'), [party[0]!, { ...party[1]!, exact: true }], []).auto, [
      { invoice_id: 21, amount: 5000 },
    ]);
  });

  it('an invoice without a party is not certain by number', () => {
    const orphan = [{ ...inv(31, 'AB-98201', 0, 5000), client_id: null }];
    assert.equal(decide(line(5000, 'AB-98201'), orphan, []).auto, null);
  });

  it('the decision depends on the party’s other invoices once the numbers would settle', () => {
    const party = [
      inv(41, 'AB-98301', 4, 5000, { exact: false }),
      inv(42, 'AB-98302', 4, 5000, { exact: false }),
      inv(43, 'AB-98401', 5, 5000, { exact: false }),
    ];
    // Named invoices first; their party's invoices once they are exact and would be settled.
    assert.deepEqual([...relevantInvoices(line(5000, 'AB-98301'), party, [])], [41]);
    party[0]!.exact = true;
    assert.deepEqual([...relevantInvoices(line(5000, 'AB-98301'), party, [])].sort(), [41, 42]);
    // Another amount: the numbers settle nothing, nothing more to read.
    assert.deepEqual([...relevantInvoices(line(4000, 'AB-98301'), party, [])], [41]);
    // Open amounts known exactly from the load need no read, and tell twins apart.
    party[1]!.known = true;
    assert.deepEqual([...relevantInvoices(line(5000, 'AB-98301'), party, [])], [41]);
    assert.equal(decide(line(5000, 'AB-98301'), party, []).auto, null);
    party[1]!.open = 4000;
    assert.deepEqual(decide(line(5000, 'AB-98301'), party, []).auto, [{ invoice_id: 41, amount: 5000 }]);
  });
});
