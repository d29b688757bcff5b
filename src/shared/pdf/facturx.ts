import { Decimal } from 'decimal.js';
import { XMLBuilder } from 'fast-xml-parser';
import { defaultExemptionReason, formatterFor, isNegative, isZero, negate } from './format.js';
import type { PdfDocument, PdfLine, PdfParty, PdfTaxCategory, PdfTaxEntry } from './types.js';
import { unitCode } from './units.js';

/**
 * EN 16931 Cross Industry Invoice (UN/CEFACT CII D16B) as embedded by Factur-X 1.0 / ZUGFeRD 2.x,
 * profile EN 16931 ("COMFORT"). Amounts are the caller's strings, only normalised to two
 * decimals; decimal.js is used for the few derived values (line allowance, prepaid sum) and to
 * check the EN 16931 sum rules, never binary floats.
 */
export const FACTURX_FILENAME = 'factur-x.xml';
export const FACTURX_GUIDELINE = 'urn:cen.eu:en16931:2017';
/** BT-24 of XRechnung 3.0: EN 16931 plus the German CIUS rules (BR-DE-*). */
export const XRECHNUNG_GUIDELINE = 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0';

type Node = Record<string, unknown>;

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  format: true,
  suppressEmptyNode: true,
});

/**
 * UNTDID 1001. Deposits and partial invoices of a plan are both invoiced parts of one supply
 * (Abschlags-/Teilrechnung): 326, the code XRechnung lists for them (BR-DE-17 names 326, not 386).
 * The final invoice is a plain 380 that states the deducted ones as the prepaid amount (BT-113).
 */
export const TYPE_CODES: Record<PdfDocument['kind'], string> = {
  invoice: '380',
  final: '380',
  credit: '381',
  deposit: '326',
  partial: '326',
  offer: '380',
};

export function taxCategory(entry: Pick<PdfTaxEntry, 'rate' | 'category'>): PdfTaxCategory {
  if (entry.category) return entry.category;
  // A 0 % rate without further information is treated as exempt (E): for an agency this is
  // the common case (small business, exempt services), and E carries a printed reason.
  return new Decimal(entry.rate).isZero() ? 'E' : 'S';
}

/** Whether the buyer's address is where the goods went (intra-community supplies: BR-IC-12). */
export const needsDeliveryCountry = (doc: PdfDocument) => doc.taxes.some((t) => taxCategory(t) === 'K');

/** BT-72: the supply date when the document has no service period. */
export const deliveryDate = (doc: PdfDocument): string | null =>
  doc.service_period_start || doc.service_period_end ? null : (doc.service_date ?? null);

/**
 * The CII of a document. `guideline` is BT-24: Factur-X EN 16931 inside PDFs, XRechnung 3.0 for
 * the XML download; the content is the same.
 */
export function buildFacturXXml(doc: PdfDocument, guideline = FACTURX_GUIDELINE): string {
  checkTotals(doc);
  const flip = flipsSign(doc);
  const money = (value: string): string => twoDecimals(flip ? negate(value) : value);
  const lang = formatterFor(doc).lang;
  const taxFor = (rate: string) => doc.taxes.find((t) => sameNumber(t.rate, rate));
  const prepaid = prepaidTotal(doc);

  const tree: Node = {
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    'rsm:CrossIndustryInvoice': {
      '@_xmlns:rsm': 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100',
      '@_xmlns:qdt': 'urn:un:unece:uncefact:data:standard:QualifiedDataType:100',
      '@_xmlns:ram': 'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100',
      '@_xmlns:udt': 'urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100',
      'rsm:ExchangedDocumentContext': {
        'ram:GuidelineSpecifiedDocumentContextParameter': { 'ram:ID': guideline },
      },
      'rsm:ExchangedDocument': {
        'ram:ID': text(doc.number ?? 'DRAFT'),
        'ram:TypeCode': TYPE_CODES[doc.kind],
        'ram:IssueDateTime': dateTime(doc.date ?? new Date().toISOString().slice(0, 10)),
      },
      'rsm:SupplyChainTradeTransaction': {
        'ram:IncludedSupplyChainTradeLineItem': doc.lines.map((line) => lineItem(line, flip, taxFor, lang)),
        'ram:ApplicableHeaderTradeAgreement': {
          'ram:BuyerReference': opt(doc.buyer_reference),
          'ram:SellerTradeParty': party(doc.seller, doc.seller.country_code),
          'ram:BuyerTradeParty': party(doc.buyer, doc.seller.country_code),
          'ram:BuyerOrderReferencedDocument': doc.order_reference
            ? { 'ram:IssuerAssignedID': text(doc.order_reference) }
            : undefined,
        },
        'ram:ApplicableHeaderTradeDelivery': {
          'ram:ShipToTradeParty': needsDeliveryCountry(doc)
            ? {
                'ram:Name': text(doc.buyer.name),
                'ram:PostalTradeAddress': {
                  'ram:CountryID': (doc.buyer.country_code || doc.seller.country_code || 'DE').toUpperCase(),
                },
              }
            : undefined,
          'ram:ActualDeliverySupplyChainEvent': deliveryDate(doc)
            ? { 'ram:OccurrenceDateTime': dateTime(deliveryDate(doc)!) }
            : undefined,
        },
        'ram:ApplicableHeaderTradeSettlement': {
          'ram:PaymentReference': doc.number ? text(doc.number) : undefined,
          'ram:InvoiceCurrencyCode': doc.currency,
          'ram:SpecifiedTradeSettlementPaymentMeans': paymentMeans(doc),
          'ram:ApplicableTradeTax': doc.taxes.map((t) => headerTax(t, money, lang)),
          'ram:BillingSpecifiedPeriod': period(doc.service_period_start, doc.service_period_end),
          'ram:SpecifiedTradePaymentTerms':
            doc.payment_terms || doc.due_date
              ? {
                  'ram:Description': opt(doc.payment_terms),
                  'ram:DueDateDateTime': doc.due_date ? dateTime(doc.due_date) : undefined,
                }
              : undefined,
          'ram:SpecifiedTradeSettlementHeaderMonetarySummation': {
            'ram:LineTotalAmount': money(doc.net_total),
            'ram:TaxBasisTotalAmount': money(doc.net_total),
            'ram:TaxTotalAmount': { '@_currencyID': doc.currency, '#text': money(doc.tax_total) },
            'ram:GrandTotalAmount': money(doc.gross_total),
            'ram:TotalPrepaidAmount': isZero(prepaid) ? undefined : money(prepaid),
            'ram:DuePayableAmount': money(amountDue(doc)),
          },
          'ram:InvoiceReferencedDocument': doc.preceding_invoice
            ? {
                'ram:IssuerAssignedID': text(doc.preceding_invoice.number),
                'ram:FormattedIssueDateTime': doc.preceding_invoice.date
                  ? {
                      'qdt:DateTimeString': {
                        '@_format': '102',
                        '#text': compactDate(doc.preceding_invoice.date),
                      },
                    }
                  : undefined,
              }
            : undefined,
        },
      },
    },
  };
  return builder.build(tree);
}

/** A line as EN 16931 states it: sign-corrected quantity and price, net, and its discount. */
export interface LineFigures {
  quantity: string;
  price: string;
  net: string;
  /** The line discount as an allowance: quantity x price - amount = net exactly. */
  allowance: { percent: string; basis: string; amount: string } | null;
}

export function lineFigures(line: PdfLine, flip: boolean): LineFigures {
  let quantity = flip ? negate(line.quantity) : line.quantity;
  let price = line.unit_price;
  const net = twoDecimals(flip ? negate(line.net_total) : line.net_total);
  // BR-27: the item net price must not be negative; the sign moves to the quantity instead.
  if (isNegative(price)) {
    price = negate(price);
    quantity = negate(quantity);
  }
  // The printed unit price is before the line discount; EN 16931 expresses the discount as a line
  // allowance so that quantity x price - allowance equals the given line total exactly.
  let allowance: LineFigures['allowance'] = null;
  if (line.discount && !isZero(line.discount)) {
    const basis = new Decimal(quantity).times(price).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
    const actual = basis.minus(net);
    if (!actual.isZero())
      allowance = { percent: normalise(line.discount), basis: basis.toFixed(2), amount: actual.toFixed(2) };
  }
  return { quantity: normalise(quantity), price: normalise(price), net, allowance };
}

/** Credit notes (381) carry positive amounts; a credit given with negative amounts is flipped. */
export const flipsSign = (doc: PdfDocument) => doc.kind === 'credit' && isNegative(doc.gross_total);

function lineItem(
  line: PdfLine,
  flip: boolean,
  taxFor: (rate: string) => PdfTaxEntry | undefined,
  lang: 'en' | 'de',
): Node {
  const { quantity, price, net, allowance: a } = lineFigures(line, flip);
  const category = taxCategory(taxFor(line.tax_rate) ?? { rate: line.tax_rate });
  const allowance: Node | undefined = a
    ? {
        'ram:ChargeIndicator': { 'udt:Indicator': 'false' },
        'ram:CalculationPercent': a.percent,
        'ram:BasisAmount': a.basis,
        'ram:ActualAmount': a.amount,
        'ram:ReasonCode': '95',
        'ram:Reason': lang === 'de' ? 'Rabatt' : 'Discount',
      }
    : undefined;
  return {
    'ram:AssociatedDocumentLineDocument': { 'ram:LineID': String(line.position) },
    'ram:SpecifiedTradeProduct': {
      'ram:Name': text(line.title),
      'ram:Description': opt(line.description),
    },
    'ram:SpecifiedLineTradeAgreement': {
      'ram:NetPriceProductTradePrice': { 'ram:ChargeAmount': normalise(price) },
    },
    'ram:SpecifiedLineTradeDelivery': {
      'ram:BilledQuantity': { '@_unitCode': unitCode(line.unit), '#text': normalise(quantity) },
    },
    'ram:SpecifiedLineTradeSettlement': {
      'ram:ApplicableTradeTax': {
        'ram:TypeCode': 'VAT',
        'ram:CategoryCode': category,
        'ram:RateApplicablePercent': category === 'O' ? undefined : normalise(line.tax_rate),
      },
      'ram:SpecifiedTradeAllowanceCharge': allowance,
      'ram:SpecifiedTradeSettlementLineMonetarySummation': { 'ram:LineTotalAmount': net },
    },
  };
}

function headerTax(t: PdfTaxEntry, money: (v: string) => string, lang: 'en' | 'de'): Node {
  const category = taxCategory(t);
  const reason =
    category === 'S' || category === 'Z'
      ? undefined
      : (t.exemption_reason ?? defaultExemptionReason(lang, category));
  return {
    'ram:CalculatedAmount': money(t.tax),
    'ram:TypeCode': 'VAT',
    'ram:ExemptionReason': reason ? text(reason) : undefined,
    'ram:BasisAmount': money(t.net),
    'ram:CategoryCode': category,
    'ram:ExemptionReasonCode':
      category === 'S' || category === 'Z' ? undefined : opt(t.exemption_reason_code),
    'ram:RateApplicablePercent': category === 'O' ? undefined : normalise(t.rate),
  };
}

function party(p: PdfParty, fallbackCountry: string | null | undefined): Node {
  const contact =
    p.attention || p.phone || p.email
      ? {
          'ram:PersonName': opt(p.attention),
          'ram:TelephoneUniversalCommunication': p.phone
            ? { 'ram:CompleteNumber': text(p.phone) }
            : undefined,
          'ram:EmailURIUniversalCommunication': p.email ? { 'ram:URIID': text(p.email) } : undefined,
        }
      : undefined;
  const registrations: Node[] = [];
  if (p.vat_id)
    registrations.push({ 'ram:ID': { '@_schemeID': 'VA', '#text': text(p.vat_id.replace(/\s+/g, '')) } });
  if (p.tax_number) registrations.push({ 'ram:ID': { '@_schemeID': 'FC', '#text': text(p.tax_number) } });
  return {
    'ram:Name': text(p.name),
    'ram:DefinedTradeContact': contact,
    'ram:PostalTradeAddress': {
      'ram:PostcodeCode': opt(p.zip),
      'ram:LineOne': opt(p.street),
      'ram:CityName': opt(p.city),
      // The country is mandatory (BR-9/BR-11); a party without one is assumed domestic.
      'ram:CountryID': (p.country_code || fallbackCountry || 'DE').toUpperCase(),
    },
    'ram:URIUniversalCommunication': p.email
      ? { 'ram:URIID': { '@_schemeID': 'EM', '#text': text(p.email) } }
      : undefined,
    'ram:SpecifiedTaxRegistration': registrations.length ? registrations : undefined,
  };
}

function paymentMeans(doc: PdfDocument): Node | undefined {
  const iban = doc.seller.iban?.replace(/\s+/g, '').toUpperCase();
  if (!iban) return undefined;
  return {
    'ram:TypeCode': '58', // SEPA credit transfer
    'ram:PayeePartyCreditorFinancialAccount': {
      'ram:IBANID': iban,
      'ram:AccountName': text(doc.seller.name),
    },
    'ram:PayeeSpecifiedCreditorFinancialInstitution': doc.seller.bic
      ? { 'ram:BICID': doc.seller.bic.replace(/\s+/g, '').toUpperCase() }
      : undefined,
  };
}

function period(start: string | null | undefined, end: string | null | undefined): Node | undefined {
  if (!start && !end) return undefined;
  return {
    'ram:StartDateTime': start ? dateTime(start) : undefined,
    'ram:EndDateTime': end ? dateTime(end) : undefined,
  };
}

/** Deductions (earlier deposits/partials, gross) plus payments already received. */
export function prepaidTotal(doc: PdfDocument): string {
  let sum = new Decimal(doc.paid_total ?? '0');
  for (const d of doc.deductions ?? []) sum = sum.plus(d.gross);
  return sum.toFixed(2);
}

export function amountDue(doc: PdfDocument): string {
  return doc.amount_due ?? new Decimal(doc.gross_total).minus(prepaidTotal(doc)).toFixed(2);
}

/**
 * The EN 16931 sum rules (BR-16, BR-CO-10/13/14/15/16/17, BR-S-08 per rate) on the caller's strings. An
 * e-invoice that a receiver's validator rejects is worse than a loud error in the mapping code.
 */
export function checkTotals(doc: PdfDocument): void {
  const errors: string[] = [];
  const sum = (values: string[]) => values.reduce((a, v) => a.plus(v), new Decimal(0));
  const eq = (a: Decimal.Value, b: Decimal.Value) => new Decimal(a).equals(b);
  const lineSum = sum(doc.lines.map((l) => l.net_total));
  if (!eq(lineSum, doc.net_total))
    errors.push(`lines sum to ${lineSum.toFixed(2)}, net_total is ${doc.net_total}`);
  if (doc.lines.length === 0) errors.push('an invoice needs at least one line (BR-16)');
  for (const t of doc.taxes) {
    const perRate = sum(doc.lines.filter((l) => sameNumber(l.tax_rate, t.rate)).map((l) => l.net_total));
    if (!eq(perRate, t.net))
      errors.push(`lines at ${t.rate}% sum to ${perRate.toFixed(2)}, taxes say ${t.net}`);
    // BR-CO-17 / BR-S-09: the tax of a rate is its base times the rate, rounded once.
    const category = taxCategory(t);
    const expected =
      category === 'S'
        ? new Decimal(t.net).times(t.rate).div(100).toDecimalPlaces(2, Decimal.ROUND_HALF_UP)
        : new Decimal(0);
    if (!eq(expected, t.tax))
      errors.push(`tax at ${t.rate}% (${category}) should be ${expected.toFixed(2)}, is ${t.tax}`);
  }
  for (const l of doc.lines) {
    if (!doc.taxes.some((t) => sameNumber(t.rate, l.tax_rate)))
      errors.push(`no tax entry for rate ${l.tax_rate}`);
  }
  const taxSum = sum(doc.taxes.map((t) => t.tax));
  if (!eq(taxSum, doc.tax_total))
    errors.push(`taxes sum to ${taxSum.toFixed(2)}, tax_total is ${doc.tax_total}`);
  const gross = new Decimal(doc.net_total).plus(doc.tax_total);
  if (!eq(gross, doc.gross_total))
    errors.push(`net + tax is ${gross.toFixed(2)}, gross_total is ${doc.gross_total}`);
  const due = new Decimal(doc.gross_total).minus(prepaidTotal(doc));
  if (!eq(due, amountDue(doc)))
    errors.push(`gross - prepaid is ${due.toFixed(2)}, amount_due is ${doc.amount_due}`);
  if (errors.length) throw new Error(`Factur-X totals are inconsistent: ${errors.join('; ')}`);
}

export function sameNumber(a: string, b: string): boolean {
  return new Decimal(a).equals(b);
}

/** Amounts have at most two decimals in EN 16931 (BR-DEC); more would be a caller bug. */
export function twoDecimals(value: string): string {
  const d = new Decimal(value);
  if (d.decimalPlaces() > 2) throw new Error(`amount with more than two decimals: ${value}`);
  return d.toFixed(2);
}

/** Quantities, prices, percentages: exact, without a sign-only zero or superfluous zeros. */
export function normalise(value: string): string {
  return new Decimal(value).toFixed();
}

function dateTime(iso: string): Node {
  return { 'udt:DateTimeString': { '@_format': '102', '#text': compactDate(iso) } };
}

export function compactDate(iso: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(iso);
  if (!m) throw new Error(`not an ISO date: ${iso}`);
  return m[1]! + m[2]! + m[3]!;
}

/** XML 1.0 forbids most control characters; the builder escapes markup characters itself. */
export function text(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping exactly those characters
  return value.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '').trim();
}

export function opt(value: string | null | undefined): string | undefined {
  return value ? text(value) : undefined;
}
