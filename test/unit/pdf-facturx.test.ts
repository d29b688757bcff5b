import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { taxCategory } from '../../src/shared/pdf/facturx.js';
import { formatterFor, isZero, negate } from '../../src/shared/pdf/format.js';
import { buildFacturX } from '../../src/shared/pdf/render.js';
import { sampleDocument } from '../../src/shared/pdf/sample.js';
import type { PdfDocument } from '../../src/shared/pdf/types.js';
import { unitCode } from '../../src/shared/pdf/units.js';

// Repeated elements always as arrays, values as the exact strings written.
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  isArray: (name) =>
    [
      'ram:IncludedSupplyChainTradeLineItem',
      'ram:ApplicableTradeTax',
      'ram:SpecifiedTaxRegistration',
    ].includes(name),
});

function parse(doc: PdfDocument) {
  const xml = buildFacturX(doc);
  assert.equal(XMLValidator.validate(xml), true, 'well-formed XML');
  const root = parser.parse(xml)['rsm:CrossIndustryInvoice'];
  assert.ok(root, 'root element rsm:CrossIndustryInvoice');
  const tx = root['rsm:SupplyChainTradeTransaction'];
  return {
    xml,
    root,
    lines: tx['ram:IncludedSupplyChainTradeLineItem'] as any[],
    agreement: tx['ram:ApplicableHeaderTradeAgreement'],
    settlement: tx['ram:ApplicableHeaderTradeSettlement'],
    sums: tx['ram:ApplicableHeaderTradeSettlement']['ram:SpecifiedTradeSettlementHeaderMonetarySummation'],
  };
}

describe('format', () => {
  const cases: [lang: 'en' | 'de', currency: string, value: string, expected: string][] = [
    ['de', 'EUR', '1234.56', '1.234,56 €'],
    ['en', 'EUR', '1234.56', '€1,234.56'],
    ['de', 'EUR', '-119.00', '-119,00 €'],
    ['en', 'EUR', '-119.00', '-€119.00'],
    ['de', 'CHF', '10', '10,00 CHF'],
    // Beyond float precision: formatted from the string, not from a double.
    ['de', 'EUR', '90071992547409.93', '90.071.992.547.409,93 €'],
  ];
  for (const [lang, currency, value, expected] of cases) {
    it(`money ${lang} ${currency} ${value} -> ${expected}`, () => {
      const fmt = formatterFor({ language: lang, currency });
      assert.equal(fmt.money(value).replace(/[\u00a0\u202f]/g, ' '), expected);
    });
  }

  it('formats quantities, percentages, dates and keeps unit price decimals', () => {
    const de = formatterFor({ language: 'de', currency: 'EUR' });
    const en = formatterFor({ language: 'en', currency: 'EUR' });
    assert.equal(de.quantity('1.5'), '1,5');
    assert.equal(en.quantity('1250'), '1,250');
    assert.equal(de.percent('19'), '19\u00a0%');
    assert.equal(en.percent('7'), '7%');
    assert.equal(de.date('2025-03-04'), '04.03.2025');
    assert.equal(en.date('2025-03-04'), '4 Mar 2025');
    assert.equal(de.price('0.125').replace(/\u00a0/g, ' '), '0,125 €');
    assert.throws(() => de.money('1,5'), /not a decimal/);
  });

  it('negates and detects zero on the strings', () => {
    assert.equal(negate('12.50'), '-12.50');
    assert.equal(negate('-12.50'), '12.50');
    assert.equal(negate('0.00'), '0.00');
    assert.ok(isZero('-0.00'));
    assert.ok(!isZero('0.01'));
  });
});

describe('buildFacturX', () => {
  it('builds the EN 16931 header, parties, lines and sums from the given strings', () => {
    const doc = sampleDocument({ lines: 5, number: 'RE-2025-0042' });
    const { root, lines, agreement, settlement, sums } = parse(doc);
    assert.equal(
      root['rsm:ExchangedDocumentContext']['ram:GuidelineSpecifiedDocumentContextParameter']['ram:ID'],
      'urn:cen.eu:en16931:2017',
    );
    const header = root['rsm:ExchangedDocument'];
    assert.equal(header['ram:ID'], 'RE-2025-0042');
    assert.equal(header['ram:TypeCode'], '380');
    assert.equal(header['ram:IssueDateTime']['udt:DateTimeString']['#text'], '20250314');
    assert.equal(header['ram:IssueDateTime']['udt:DateTimeString']['@format'], '102');

    const seller = agreement['ram:SellerTradeParty'];
    assert.equal(seller['ram:Name'], 'Nordlicht Digital GmbH');
    assert.equal(seller['ram:PostalTradeAddress']['ram:CountryID'], 'DE');
    assert.deepEqual(
      seller['ram:SpecifiedTaxRegistration'].map((r: any) => [
        r['ram:ID']['@schemeID'],
        r['ram:ID']['#text'],
      ]),
      [
        ['VA', 'DE123456789'],
        ['FC', '27/123/45678'],
      ],
    );
    const buyer = agreement['ram:BuyerTradeParty'];
    assert.equal(buyer['ram:Name'], 'Müller & Söhne Bäckerei GmbH');
    assert.equal(buyer['ram:PostalTradeAddress']['ram:CityName'], 'Düsseldorf');
    assert.equal(buyer['ram:SpecifiedTaxRegistration'][0]['ram:ID']['#text'], 'DE987654321');
    assert.equal(agreement['ram:BuyerOrderReferencedDocument']['ram:IssuerAssignedID'], 'PO-7781');

    assert.equal(lines.length, 5);
    const first = lines[0];
    assert.equal(first['ram:AssociatedDocumentLineDocument']['ram:LineID'], '1');
    assert.equal(first['ram:SpecifiedTradeProduct']['ram:Name'], 'Konzeption & UX-Workshop');
    assert.equal(
      first['ram:SpecifiedLineTradeAgreement']['ram:NetPriceProductTradePrice']['ram:ChargeAmount'],
      '120',
    );
    assert.deepEqual(first['ram:SpecifiedLineTradeDelivery']['ram:BilledQuantity'], {
      '#text': '1',
      '@unitCode': 'HUR',
    });
    const tax = first['ram:SpecifiedLineTradeSettlement']['ram:ApplicableTradeTax'][0];
    assert.equal(tax['ram:CategoryCode'], 'S');
    assert.equal(tax['ram:RateApplicablePercent'], '19');
    lines.forEach((line, i) => {
      assert.equal(
        line['ram:SpecifiedLineTradeSettlement']['ram:SpecifiedTradeSettlementLineMonetarySummation'][
          'ram:LineTotalAmount'
        ],
        doc.lines[i]!.net_total,
      );
    });

    assert.equal(settlement['ram:InvoiceCurrencyCode'], 'EUR');
    assert.equal(settlement['ram:PaymentReference'], 'RE-2025-0042');
    const means = settlement['ram:SpecifiedTradeSettlementPaymentMeans'];
    assert.equal(means['ram:TypeCode'], '58');
    assert.equal(means['ram:PayeePartyCreditorFinancialAccount']['ram:IBANID'], 'DE89370400440532013000');
    assert.equal(means['ram:PayeeSpecifiedCreditorFinancialInstitution']['ram:BICID'], 'COBADEFFXXX');
    assert.deepEqual(
      settlement['ram:ApplicableTradeTax'].map((t: any) => [
        t['ram:RateApplicablePercent'],
        t['ram:BasisAmount'],
        t['ram:CalculatedAmount'],
        t['ram:CategoryCode'],
      ]),
      doc.taxes.map((t) => [t.rate, t.net, t.tax, 'S']),
    );
    const terms = settlement['ram:SpecifiedTradePaymentTerms'];
    assert.equal(terms['ram:Description'], doc.payment_terms);
    assert.equal(terms['ram:DueDateDateTime']['udt:DateTimeString']['#text'], '20250328');
    assert.equal(
      settlement['ram:BillingSpecifiedPeriod']['ram:StartDateTime']['udt:DateTimeString']['#text'],
      '20250201',
    );

    assert.equal(sums['ram:LineTotalAmount'], doc.net_total);
    assert.equal(sums['ram:TaxBasisTotalAmount'], doc.net_total);
    assert.deepEqual(sums['ram:TaxTotalAmount'], { '#text': doc.tax_total, '@currencyID': 'EUR' });
    assert.equal(sums['ram:GrandTotalAmount'], doc.gross_total);
    assert.equal(sums['ram:TotalPrepaidAmount'], undefined);
    assert.equal(sums['ram:DuePayableAmount'], doc.gross_total);
  });

  it('maps document kinds to UNTDID 1001 type codes', () => {
    const codes = (['invoice', 'final', 'credit', 'deposit', 'partial'] as const).map(
      (kind) => parse(sampleDocument({ kind }))['root']['rsm:ExchangedDocument']['ram:TypeCode'],
    );
    assert.deepEqual(codes, ['380', '380', '381', '326', '326']);
  });

  it('maps units to UN/ECE Rec 20 codes', () => {
    const table: [string | null, string][] = [
      ['h', 'HUR'],
      ['hour', 'HUR'],
      ['Std.', 'HUR'],
      ['Stunden', 'HUR'],
      ['day', 'DAY'],
      ['Tag', 'DAY'],
      ['Tage', 'DAY'],
      ['piece', 'C62'],
      ['pc', 'C62'],
      ['Stk', 'C62'],
      ['Stk.', 'C62'],
      ['H87', 'H87'],
      ['Monat', 'MON'],
      ['HUR', 'HUR'],
      ['pauschal', 'LS'],
      ['Pauschale', 'LS'],
      ['km', 'KMT'],
      ['something odd', 'C62'],
      [null, 'C62'],
    ];
    for (const [unit, code] of table) assert.equal(unitCode(unit), code, String(unit));
  });

  it('expresses a line discount as a line allowance so that the line total stays exact', () => {
    const doc = sampleDocument({ lines: 3 });
    const discounted = doc.lines[2]!;
    assert.equal(discounted.discount, '10');
    const { lines } = parse(doc);
    const settlement = lines[2]['ram:SpecifiedLineTradeSettlement'];
    const allowance = settlement['ram:SpecifiedTradeAllowanceCharge'];
    assert.equal(allowance['ram:ChargeIndicator']['udt:Indicator'], 'false');
    assert.equal(allowance['ram:CalculationPercent'], '10');
    assert.equal(allowance['ram:BasisAmount'], '2340.00'); // 3 days x 780.00
    assert.equal(allowance['ram:ActualAmount'], '234.00');
    assert.equal(allowance['ram:ReasonCode'], '95');
    assert.equal(
      settlement['ram:SpecifiedTradeSettlementLineMonetarySummation']['ram:LineTotalAmount'],
      '2106.00',
    );
  });

  it('states deductions and payments as TotalPrepaidAmount and the rest as DuePayableAmount', () => {
    const doc = sampleDocument({
      lines: 2,
      kind: 'final',
      paid: '100.00',
      deductions: [{ title: 'Deposit', number: 'RE-1', net: '100.00', rate: '19' }],
    });
    const { sums } = parse(doc);
    assert.equal(sums['ram:GrandTotalAmount'], doc.gross_total);
    assert.equal(sums['ram:TotalPrepaidAmount'], '219.00');
    assert.equal(sums['ram:DuePayableAmount'], doc.amount_due);
  });

  it('turns a credit note with negative amounts into a 381 with positive amounts and prices', () => {
    const doc = sampleDocument({ lines: 2, kind: 'credit', negative: true });
    doc.preceding_invoice = { number: 'RE-2025-0040', date: '2025-03-01' };
    const { root, lines, sums, settlement } = parse(doc);
    assert.equal(root['rsm:ExchangedDocument']['ram:TypeCode'], '381');
    assert.equal(sums['ram:GrandTotalAmount'], negate(doc.gross_total));
    assert.equal(sums['ram:DuePayableAmount'], negate(doc.gross_total));
    assert.equal(lines[0]['ram:SpecifiedLineTradeDelivery']['ram:BilledQuantity']['#text'], '1');
    assert.equal(settlement['ram:ApplicableTradeTax'][0]['ram:CalculatedAmount'], negate(doc.taxes[0]!.tax));
    assert.equal(settlement['ram:InvoiceReferencedDocument']['ram:IssuerAssignedID'], 'RE-2025-0040');
  });

  it('moves a negative unit price sign to the quantity (BR-27)', () => {
    const doc = sampleDocument({ lines: 1 });
    const line = doc.lines[0]!;
    Object.assign(line, { quantity: '2', unit_price: '-50.00', net_total: '-100.00' });
    Object.assign(doc, {
      taxes: [{ rate: '19', net: '-100.00', tax: '-19.00' }],
      net_total: '-100.00',
      tax_total: '-19.00',
      gross_total: '-119.00',
      amount_due: '-119.00',
    });
    const { lines } = parse(doc);
    assert.equal(
      lines[0]['ram:SpecifiedLineTradeAgreement']['ram:NetPriceProductTradePrice']['ram:ChargeAmount'],
      '50',
    );
    assert.equal(lines[0]['ram:SpecifiedLineTradeDelivery']['ram:BilledQuantity']['#text'], '-2');
  });

  it('uses E with a reason for 0 % by default and honours an explicit category', () => {
    assert.equal(taxCategory({ rate: '0' }), 'E');
    assert.equal(taxCategory({ rate: '19' }), 'S');
    assert.equal(taxCategory({ rate: '0', category: 'Z' }), 'Z');
    const doc = sampleDocument({ lines: 1, language: 'de' });
    doc.lines[0]!.tax_rate = '0';
    Object.assign(doc, {
      taxes: [{ rate: '0', net: doc.net_total, tax: '0.00' }],
      tax_total: '0.00',
      gross_total: doc.net_total,
      amount_due: doc.net_total,
    });
    let tax = parse(doc).settlement['ram:ApplicableTradeTax'][0];
    assert.equal(tax['ram:CategoryCode'], 'E');
    assert.equal(tax['ram:ExemptionReason'], 'Steuerfreie Leistung.');
    assert.equal(tax['ram:RateApplicablePercent'], '0');
    doc.taxes[0]!.category = 'O';
    tax = parse(doc).settlement['ram:ApplicableTradeTax'][0];
    assert.equal(tax['ram:CategoryCode'], 'O');
    assert.equal(tax['ram:RateApplicablePercent'], undefined, 'no rate for "not subject to VAT"');
  });

  it('escapes markup and drops control characters', () => {
    const doc = sampleDocument({ lines: 1 });
    doc.lines[0]!.title = 'A <b>&</b> "quoted" \u0007line';
    doc.buyer.name = 'Smith & Sons <Ltd>';
    const { xml, lines, agreement } = parse(doc);
    assert.ok(xml.includes('Smith &amp; Sons &lt;Ltd&gt;'));
    assert.equal(lines[0]['ram:SpecifiedTradeProduct']['ram:Name'], 'A <b>&</b> "quoted" line');
    assert.equal(agreement['ram:BuyerTradeParty']['ram:Name'], 'Smith & Sons <Ltd>');
  });

  it('refuses totals that break the EN 16931 sum rules', () => {
    const cases: [string, (d: PdfDocument) => void, RegExp][] = [
      ['line sum', (d) => (d.lines[0]!.net_total = '1.00'), /lines sum to/],
      ['tax sum', (d) => (d.tax_total = '0.01'), /taxes sum to/],
      ['gross', (d) => (d.gross_total = '0.01'), /net \+ tax/],
      ['due', (d) => (d.amount_due = '0.01'), /amount_due/],
      ['rate', (d) => (d.lines[0]!.tax_rate = '16'), /no tax entry for rate 16/],
      [
        'tax of a rate',
        (d) => Object.assign(d, { taxes: [{ ...d.taxes[0]!, tax: '1.00' }], tax_total: '1.00' }),
        /should be/,
      ],
      ['no lines', (d) => Object.assign(d, { lines: [] }), /at least one line/],
      [
        'decimals',
        (d) => Object.assign(d.lines[0]!, { net_total: '0.001' }),
        /more than two decimals|lines sum/,
      ],
    ];
    for (const [name, mutate, message] of cases) {
      const doc = sampleDocument({ lines: 2 });
      mutate(doc);
      assert.throws(() => buildFacturX(doc), message, name);
    }
  });
});
