import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_LIMITS } from '../../src/modules/incoming-invoices/extraction.js';
import { mergeExtraction } from '../../src/modules/incoming-invoices/extraction.merge.js';
import type {
  ExtractedFields,
  ExtractionOutcome,
} from '../../src/modules/incoming-invoices/extraction.model.js';
import { completeTotals } from '../../src/modules/incoming-invoices/incoming-invoices.service.js';
import { readXmlInvoice } from '../../src/modules/incoming-invoices/xml/index.js';
import { toCents } from '../../src/shared/money.js';

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

describe('storing an extraction honestly', () => {
  const outcome = (fields: ExtractedFields, confidence = 0.9): ExtractionOutcome => ({
    fields,
    provenance: Object.fromEntries(Object.keys(fields).map((k) => [k, { source: 'pdf_text', confidence }])),
    warnings: [],
  });
  it('a gross total alone is stored alone: no net = gross, no tax = 0', () => {
    const m = mergeExtraction(outcome({ gross_total: '119.00' }), new Set());
    assert.deepEqual(m.values, { gross_total: 11900 });
    assert.deepEqual(m.used, ['gross_total']);
  });
  it('a total read from two others is marked derived, as sure as the less sure of them', () => {
    const m = mergeExtraction(
      {
        ...outcome({ gross_total: '119.00', tax_total: '19.00' }),
        provenance: {
          gross_total: { source: 'pdf_text', confidence: 0.9 },
          tax_total: { source: 'pdf_text', confidence: 0.7 },
        },
      },
      new Set(),
    );
    assert.equal(m.values.net_total, 10000);
    assert.deepEqual(m.provenance.net_total, { source: 'pdf_text', confidence: 0.7, derived: true });
  });
  it('a total given in the request replaces all extracted totals; other request fields are left alone', () => {
    const m = mergeExtraction(
      outcome({ gross_total: '119.00', net_total: '100.00', iban: 'DE89370400440532013000' }),
      new Set(['tax_total', 'iban']),
    );
    assert.deepEqual(m.values, {});
  });
  it('an IBAN failing its check is not stored; a VAT id off its format is stored and flagged', () => {
    const m = mergeExtraction(
      outcome({ iban: 'DE89370400440532013001', supplier_vat_id: 'DE12345' }),
      new Set(),
    );
    assert.deepEqual(m.values, { supplier_vat_id: 'DE12345' });
    assert.deepEqual(
      m.warnings.map((w) => [w.code, w.field]),
      [
        ['invalid_value', 'supplier_vat_id'],
        ['invalid_value', 'iban'],
      ],
    );
  });
});
