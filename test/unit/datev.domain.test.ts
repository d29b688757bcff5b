import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type BookingAccounts,
  bookingRow,
  datevCountry,
  datevTax,
  euRateField,
  euVatId,
  type OutgoingDocument,
  ossRevenueAccount,
  outgoingBookings,
} from '../../src/modules/exports/datev.domain.js';
import { deductionRate, taxInGross } from '../../src/modules/exports/vat.domain.js';
import { taxCents } from '../../src/shared/money.js';

/** Every standard and reduced VAT rate of the EU states (percent). */
const EU_RATES = [
  '3', '4', '5', '5.5', '6', '7', '8', '9', '9.5', '10', '12', '13', '13.5', '14', '15', '16', '17', '18',
  '19', '20', '21', '22', '23', '24', '25', '25.5', '27',
]; // biome-ignore format: one table

const ACCOUNTS = {
  revenue_19: '8400',
  revenue_7: '8300',
  revenue_tax_free: '8100',
  revenue_reverse_charge: '8336',
  revenue_intra_eu: '8125',
  receivables: '1400',
  payables: '1600',
  bank: '1200',
  interest_income: '2650',
  fee_income: '2700',
  revenue_oss: '8320',
} satisfies BookingAccounts;

const doc = (over: Partial<OutgoingDocument>): OutgoingDocument => ({
  type: 'invoice',
  number: 'RE-1',
  date: '2026-10-06',
  currency: 'EUR',
  debtor: '10000',
  partyName: 'Jörg Größl',
  buyerVatId: null,
  buyerCountry: 'AT',
  sellerVatId: 'DE 123 456 789',
  taxes: [],
  deductions: [],
  ...over,
});

describe('DATEV: One-Stop-Shop rows', () => {
  it('the tax DATEV derives from the gross is the document’s: every net to 30 €, a spread to 100,000 €', () => {
    // The document's tax is the rate's net × rate, rounded; DATEV gets gross × rate / (100 + rate).
    // They differ by less than half a cent before rounding (the net's rounding error × 100/(100 + rate)).
    const nets = [
      ...Array.from({ length: 3000 }, (_, i) => i + 1),
      ...Array.from({ length: 1000 }, (_, i) => 3001 + i * 9_973),
    ];
    for (const rate of EU_RATES)
      for (const net of nets) {
        const tax = taxCents(net, rate);
        assert.equal(datevTax(net + tax, rate), tax, `${net} cents at ${rate} %`);
        assert.equal(datevTax(-(net + tax), rate), -tax, `credit of ${net} cents at ${rate} %`);
      }
  });

  it('datevTax is the exact decimal gross × rate / (100 + rate), rounded half away from zero', () => {
    for (const rate of EU_RATES)
      for (const gross of [1, 2, 3, 50, 105, 1055, 12_000, 13_024, 999_999, 123_456_789_012])
        for (const g of [gross, -gross])
          assert.equal(datevTax(g, rate), taxInGross(g, rate), `${g} at ${rate} %`);
    // Exact halves round away from zero: 3 cents at 20 % is 0.5, 9 cents 1.5.
    assert.deepEqual(
      [datevTax(3, '20'), datevTax(-3, '20'), datevTax(9, '20'), datevTax(105, '5')],
      [1, -1, 2, 5],
    );
  });

  it('an OSS rate goes to the OSS account with key 240, state, rate and the seller’s VAT id', () => {
    const rows = outgoingBookings(
      doc({
        taxes: [
          { rate: '5.5', net: '123.45', tax: '6.79' },
          { rate: '20', net: '50.00', tax: '10.00' },
        ],
      }),
      ACCOUNTS,
    );
    assert.deepEqual(
      rows.map((r) => [r.cents, r.side, r.contra, r.buKey, r.euDestination, r.euRate, r.euOrigin]),
      [
        [13024, 'S', '8320', '240', 'AT', '5,50', 'DE123456789'],
        [6000, 'S', '8320', '240', 'AT', '20,00', 'DE123456789'],
      ],
    );
    const f = bookingRow(rows[0]!).split(';');
    assert.deepEqual([f[8], f[39], f[40], f[122], f[123]], ['"240"', '"AT"', '5,50', '"DE123456789"', '']);
  });

  it('a final invoice’s deduction of a 5.5 % deposit comes off 5.5 % (not 6 %), on the OSS account', () => {
    assert.equal(deductionRate(10000, 550, ['5.5']), '5.5');
    assert.equal(deductionRate(10000, 1900, ['19']), '19');
    assert.equal(deductionRate(1, 0, ['19']), '0', 'a cent: as the implied rate has it');
    const rows = outgoingBookings(
      doc({
        type: 'final',
        taxes: [{ rate: '5.5', net: '300.00', tax: '16.50' }],
        deductions: [{ net: '100.00', tax: '5.50' }],
      }),
      ACCOUNTS,
    );
    assert.deepEqual(
      rows.map((r) => [r.cents, r.side, r.contra, r.euRate]),
      [
        [31650, 'S', '8320', '5,50'],
        [10550, 'H', '8320', '5,50'],
      ],
    );
  });

  it('a credit at an OSS rate credits the debtor (H) with the same fields', () => {
    const [row] = outgoingBookings(
      doc({ type: 'credit', taxes: [{ rate: '20', net: '-10.00', tax: '-2.00' }] }),
      ACCOUNTS,
    );
    assert.deepEqual(
      [row!.cents, row!.side, row!.contra, row!.buKey, row!.euDestination, row!.euRate],
      [1200, 'H', '8320', '240', 'AT', '20,00'],
    );
  });

  it('a tax DATEV would not derive from the gross is refused, not exported a cent off', () => {
    assert.throws(
      () => outgoingBookings(doc({ taxes: [{ rate: '20', net: '100.00', tax: '20.01' }] }), ACCOUNTS),
      /RE-1: its tax at 20 % \(20,01\) is not the 20,00 DATEV derives/,
    );
  });

  it('not OSS: a business with a VAT id, a German buyer, a German rate', () => {
    const at20 = { taxes: [{ rate: '20', net: '100.00', tax: '20.00' }] };
    assert.throws(
      () => outgoingBookings(doc({ ...at20, buyerVatId: 'ATU12345678' }), ACCOUNTS),
      /no revenue account/,
    );
    assert.throws(
      () => outgoingBookings(doc({ ...at20, buyerCountry: 'DE' }), ACCOUNTS),
      /no revenue account/,
    );
    assert.throws(
      () => outgoingBookings(doc({ ...at20, buyerCountry: 'CH' }), ACCOUNTS),
      /no revenue account/,
    );
    // A German rate to a consumer abroad: taxed at home (under the EU threshold), 8400.
    const [home] = outgoingBookings(doc({ taxes: [{ rate: '19', net: '100.00', tax: '19.00' }] }), ACCOUNTS);
    assert.deepEqual(
      [home!.contra, home!.buKey, home!.euDestination, home!.euRate],
      ['8400', '', null, undefined],
    );
  });

  it('fields: Greece is EL, rates have two decimals, origin only from an EU VAT id, accounts padded', () => {
    assert.equal(datevCountry('GR'), 'EL');
    assert.equal(datevCountry('FR'), 'FR');
    assert.deepEqual(
      ['20', '5.5', '9.5', '25.5', '3'].map((r) => euRateField(r, 'X')),
      ['20,00', '5,50', '9,50', '25,50', '3,00'],
    );
    assert.throws(() => euRateField('5.125', 'RE-9'), /RE-9 has a tax rate of 5.125 %/);
    assert.equal(euVatId(' de 123 456 789 '), 'DE123456789');
    assert.equal(euVatId('30/123/45678'), null);
    assert.equal(euVatId('CHE-123.456.789'), null);
    assert.equal(euVatId(null), null);
    assert.deepEqual(
      [
        ossRevenueAccount({ chart: 'SKR03', account_length: 4 }),
        ossRevenueAccount({ chart: 'SKR04', account_length: 4 }),
        ossRevenueAccount({ chart: 'SKR04', account_length: 6 }),
      ],
      ['8320', '4320', '432000'],
    );
    const [gr] = outgoingBookings(
      doc({ buyerCountry: 'GR', taxes: [{ rate: '24', net: '100.00', tax: '24.00' }] }),
      ACCOUNTS,
    );
    assert.equal(gr!.euDestination, 'EL');
  });
});
