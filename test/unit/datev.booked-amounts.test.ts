import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CHART_DEFAULTS } from '../../src/modules/account/profile.public.js';
import { ossRevenueAccount, outgoingBookings } from '../../src/modules/exports/datev.domain.js';
import { bookedAmounts, documentEntries } from '../../src/modules/exports/vat.domain.js';
import { documentTotals } from '../../src/shared/money.js';

/** The stored line totals of an upload, as lineTotalsColumns writes them. */
const linesTaxes = (lines: { net: number; tax_rate: string }[]) =>
  JSON.stringify(documentTotals(lines).taxes);

describe('DATEV: amounts of booked documents and invoices made elsewhere', () => {
  it('a frozen document is read as it is; its lines totals are not looked at', () => {
    const document = JSON.stringify({
      taxes: [{ rate: '19', net: '100.00', tax: '19.00' }],
      deductions: [{ net: '50.00', tax: '9.50' }],
      amount_due: '59.50',
      gross_total: '119.00',
    });
    assert.deepEqual(
      bookedAmounts({
        document,
        lines_taxes: linesTaxes([{ net: 1, tax_rate: '7' }]),
        tax_exemption_category: null,
      }),
      {
        taxes: [{ rate: '19', net: '100.00', tax: '19.00' }],
        deductions: [{ net: '50.00', tax: '9.50' }],
        amountDue: '59.50',
      },
    );
  });

  it('an upload: its line totals per rate as a document writes them, 0 % in its VAT category', () => {
    const cases: [string, { net: number; tax_rate: string }[], string | null, unknown][] = [
      [
        '19 % and 7 %',
        [
          { net: 10000, tax_rate: '19' },
          { net: 5000, tax_rate: '7' },
        ],
        null,
        {
          taxes: [
            { rate: '7', net: '50.00', tax: '3.50' },
            { rate: '19', net: '100.00', tax: '19.00' },
          ],
          deductions: [],
          amountDue: '172.50',
        },
      ],
      [
        'reverse charge',
        [{ net: 20000, tax_rate: '0' }],
        'AE',
        {
          taxes: [{ rate: '0', net: '200.00', tax: '0.00', category: 'AE' }],
          deductions: [],
          amountDue: '200.00',
        },
      ],
      [
        'a credit',
        [{ net: -2000, tax_rate: '19' }],
        null,
        { taxes: [{ rate: '19', net: '-20.00', tax: '-3.80' }], deductions: [], amountDue: '-23.80' },
      ],
      ['no breakdown: nothing to book', [], null, { taxes: [], deductions: [], amountDue: '0.00' }],
    ];
    for (const [name, lines, category, expected] of cases)
      assert.deepEqual(
        bookedAmounts({
          document: null,
          lines_taxes: lines.length ? linesTaxes(lines) : null,
          tax_exemption_category: category,
        }),
        expected,
        name,
      );
  });

  it('an upload books like the document it would have had: same entries, same rows', () => {
    const a = bookedAmounts({
      document: null,
      lines_taxes: linesTaxes([
        { net: 12345, tax_rate: '5.5' },
        { net: 5000, tax_rate: '20' },
      ]),
      tax_exemption_category: null,
    });
    assert.deepEqual(documentEntries(a.taxes, a.deductions), [
      { rate: '5.5', category: null, net: 12345, tax: 679 },
      { rate: '20', category: null, net: 5000, tax: 1000 },
    ]);
    const accounts = { ...CHART_DEFAULTS.SKR03, revenue_oss: '8338' };
    const rows = outgoingBookings(
      {
        type: 'invoice',
        number: 'EXT-1',
        date: '2026-10-07',
        currency: 'EUR',
        debtor: '10000',
        partyName: 'Françoise Lefèvre',
        buyerVatId: null,
        buyerCountry: 'FR',
        sellerVatId: 'DE123456789',
        ...a,
      },
      accounts,
    );
    assert.deepEqual(
      rows.map((r) => [r.cents, r.contra, r.buKey, r.euRate]),
      [
        [13024, '8338', '240', '5,50'],
        [6000, '8338', '240', '20,00'],
      ],
    );
  });

  it('the OSS account defaults to the chart’s, padded to the account length', () => {
    assert.equal(ossRevenueAccount({ chart: 'SKR03', account_length: 4 }), CHART_DEFAULTS.SKR03.revenue_oss);
    assert.equal(ossRevenueAccount({ chart: 'SKR04', account_length: 5 }), '43200');
  });
});
