import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_LIMITS } from '../../src/modules/incoming-invoices/extraction.js';
import { toCents } from '../../src/modules/incoming-invoices/incoming-invoices.mappers.js';
import { completeTotals } from '../../src/modules/incoming-invoices/incoming-invoices.service.js';
import { readXmlInvoice } from '../../src/modules/incoming-invoices/xml/index.js';

describe('CII XML extraction', () => {
  it('reads credit notes and amounts as written', () => {
    const xml = `<?xml version="1.0"?><rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100" xmlns:ram="a" xmlns:udt="u">
      <rsm:ExchangedDocument><ram:ID>GS-7</ram:ID><ram:TypeCode>381</ram:TypeCode>
      <ram:IssueDateTime><udt:DateTimeString format="102">20260105</udt:DateTimeString></ram:IssueDateTime></rsm:ExchangedDocument>
      <rsm:SupplyChainTradeTransaction><ram:ApplicableHeaderTradeAgreement><ram:SellerTradeParty><ram:Name>A &amp; B</ram:Name>
      <ram:SpecifiedTaxRegistration><ram:ID schemeID="FC">12/3</ram:ID></ram:SpecifiedTaxRegistration>
      <ram:SpecifiedTaxRegistration><ram:ID schemeID="VA">DE111</ram:ID></ram:SpecifiedTaxRegistration></ram:SellerTradeParty></ram:ApplicableHeaderTradeAgreement>
      <ram:ApplicableHeaderTradeSettlement><ram:InvoiceCurrencyCode>CHF</ram:InvoiceCurrencyCode>
      <ram:SpecifiedTradeSettlementHeaderMonetarySummation><ram:TaxBasisTotalAmount>0.10</ram:TaxBasisTotalAmount>
      <ram:TaxTotalAmount currencyID="CHF">0.02</ram:TaxTotalAmount><ram:GrandTotalAmount>0.12</ram:GrandTotalAmount>
      </ram:SpecifiedTradeSettlementHeaderMonetarySummation></ram:ApplicableHeaderTradeSettlement></rsm:SupplyChainTradeTransaction></rsm:CrossIndustryInvoice>`;
    const outcome = readXmlInvoice(xml, DEFAULT_LIMITS);
    assert.equal(outcome.method, 'cii');
    assert.deepEqual(outcome.warnings, []);
    assert.deepEqual(outcome.fields, {
      document_type: 'Credit',
      invoice_number: 'GS-7',
      date: '2026-01-05',
      currency: 'CHF',
      net_total: '0.10',
      tax_total: '0.02',
      gross_total: '0.12',
      supplier_name: 'A & B',
      supplier_tax_number: '12/3',
      supplier_vat_id: 'DE111',
    });
  });
});

describe('totals', () => {
  const cases: [string, Parameters<typeof completeTotals>, [number, number, number] | 'error'][] = [
    ['gross from net + tax', [{ net_total: 1000, tax_total: 190 }], [1000, 190, 1190]],
    ['net from gross − tax', [{ gross_total: 1190, tax_total: 190 }], [1000, 190, 1190]],
    ['gross only', [{ gross_total: 500 }], [500, 0, 500]],
    ['all three must add up', [{ net_total: 1, tax_total: 1, gross_total: 3 }], 'error'],
    ['tax above gross', [{ gross_total: 1, tax_total: 2 }], 'error'],
    [
      'new gross keeps the tax',
      [{ gross_total: 2000 }, { net_total: 1000, tax_total: 190, gross_total: 1190 }],
      [1810, 190, 2000],
    ],
  ];
  for (const [name, args, expected] of cases)
    it(name, () => {
      if (expected === 'error') assert.throws(() => completeTotals(...args));
      else {
        const t = completeTotals(...args);
        assert.deepEqual([t.net_total, t.tax_total, t.gross_total], expected);
      }
    });
  it('cents conversion is exact', () => {
    for (const [v, c] of [
      [70.07, 7007],
      [0.1, 10],
      [100.1, 10010],
      [1234567.89, 123456789],
    ] as const)
      assert.equal(toCents(v), c);
  });
});
