import { XMLBuilder } from 'fast-xml-parser';
import {
  amountDue,
  checkTotals,
  deliveryDate,
  flipsSign,
  lineFigures,
  needsDeliveryCountry,
  normalise,
  opt,
  prepaidTotal,
  sameNumber,
  TYPE_CODES,
  taxCategory,
  text,
  twoDecimals,
} from './facturx.js';
import { defaultExemptionReason, formatterFor, isZero, negate } from './format.js';
import type { PdfDocument, PdfParty, PdfTaxEntry } from './types.js';
import { unitCode } from './units.js';

/**
 * The same document as UBL 2.1 (Invoice, or CreditNote for credits), EN 16931 / XRechnung 3.0.
 * Every figure comes from the helpers of the CII builder (facturx.ts), so both syntaxes state
 * exactly the same invoice; element order follows the UBL 2.1 schemas.
 */

type Node = Record<string, unknown>;

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  format: true,
  suppressEmptyNode: true,
});

export function buildUblXml(doc: PdfDocument, customizationId: string): string {
  checkTotals(doc);
  const credit = doc.kind === 'credit';
  const flip = flipsSign(doc);
  const money = (value: string) => twoDecimals(flip ? negate(value) : value);
  const amount = (value: string) => ({ '@_currencyID': doc.currency, '#text': money(value) });
  const plain = (value: string) => ({ '@_currencyID': doc.currency, '#text': value });
  const lang = formatterFor(doc).lang;
  const taxFor = (rate: string) => doc.taxes.find((t) => sameNumber(t.rate, rate));
  const prepaid = prepaidTotal(doc);
  const root = credit ? 'CreditNote' : 'Invoice';
  const start = doc.service_period_start;
  const end = doc.service_period_end;
  const delivered = deliveryDate(doc);

  const body: Node = {
    '@_xmlns': `urn:oasis:names:specification:ubl:schema:xsd:${root}-2`,
    '@_xmlns:cac': 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2',
    '@_xmlns:cbc': 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2',
    'cbc:CustomizationID': customizationId,
    'cbc:ID': text(doc.number ?? 'DRAFT'),
    'cbc:IssueDate': doc.date ?? new Date().toISOString().slice(0, 10),
    // UBL 2.1 credit notes have no DueDate: BT-9 goes to PaymentMeans there.
    'cbc:DueDate': !credit && doc.due_date ? doc.due_date : undefined,
    [credit ? 'cbc:CreditNoteTypeCode' : 'cbc:InvoiceTypeCode']: TYPE_CODES[doc.kind],
    'cbc:DocumentCurrencyCode': doc.currency,
    'cbc:BuyerReference': opt(doc.buyer_reference),
    'cac:InvoicePeriod':
      start || end ? { 'cbc:StartDate': start ?? undefined, 'cbc:EndDate': end ?? undefined } : undefined,
    'cac:OrderReference': doc.order_reference ? { 'cbc:ID': text(doc.order_reference) } : undefined,
    'cac:BillingReference': doc.preceding_invoice
      ? {
          'cac:InvoiceDocumentReference': {
            'cbc:ID': text(doc.preceding_invoice.number),
            'cbc:IssueDate': doc.preceding_invoice.date ?? undefined,
          },
        }
      : undefined,
    'cac:AccountingSupplierParty': { 'cac:Party': party(doc.seller, doc.seller.country_code) },
    'cac:AccountingCustomerParty': { 'cac:Party': party(doc.buyer, doc.seller.country_code) },
    'cac:Delivery':
      delivered || needsDeliveryCountry(doc)
        ? {
            'cbc:ActualDeliveryDate': delivered ?? undefined,
            'cac:DeliveryLocation': needsDeliveryCountry(doc)
              ? { 'cac:Address': { 'cac:Country': { 'cbc:IdentificationCode': country(doc.buyer, doc) } } }
              : undefined,
          }
        : undefined,
    'cac:PaymentMeans': paymentMeans(doc, credit),
    'cac:PaymentTerms': doc.payment_terms ? { 'cbc:Note': text(doc.payment_terms) } : undefined,
    'cac:TaxTotal': {
      'cbc:TaxAmount': amount(doc.tax_total),
      'cac:TaxSubtotal': doc.taxes.map((t) => ({
        'cbc:TaxableAmount': amount(t.net),
        'cbc:TaxAmount': amount(t.tax),
        'cac:TaxCategory': taxCategoryNode(t, lang),
      })),
    },
    'cac:LegalMonetaryTotal': {
      'cbc:LineExtensionAmount': amount(doc.net_total),
      'cbc:TaxExclusiveAmount': amount(doc.net_total),
      'cbc:TaxInclusiveAmount': amount(doc.gross_total),
      'cbc:PrepaidAmount': isZero(prepaid) ? undefined : amount(prepaid),
      'cbc:PayableAmount': amount(amountDue(doc)),
    },
    [credit ? 'cac:CreditNoteLine' : 'cac:InvoiceLine']: doc.lines.map((line) => {
      const f = lineFigures(line, flip);
      const category = taxCategory(taxFor(line.tax_rate) ?? { rate: line.tax_rate });
      return {
        'cbc:ID': String(line.position),
        [credit ? 'cbc:CreditedQuantity' : 'cbc:InvoicedQuantity']: {
          '@_unitCode': unitCode(line.unit),
          '#text': f.quantity,
        },
        'cbc:LineExtensionAmount': plain(f.net),
        'cac:AllowanceCharge': f.allowance
          ? {
              'cbc:ChargeIndicator': 'false',
              'cbc:AllowanceChargeReasonCode': '95',
              'cbc:AllowanceChargeReason': lang === 'de' ? 'Rabatt' : 'Discount',
              'cbc:MultiplierFactorNumeric': f.allowance.percent,
              'cbc:Amount': plain(f.allowance.amount),
              'cbc:BaseAmount': plain(f.allowance.basis),
            }
          : undefined,
        'cac:Item': {
          'cbc:Description': opt(line.description),
          'cbc:Name': text(line.title),
          'cac:ClassifiedTaxCategory': {
            'cbc:ID': category,
            'cbc:Percent': category === 'O' ? undefined : normalise(line.tax_rate),
            'cac:TaxScheme': { 'cbc:ID': 'VAT' },
          },
        },
        'cac:Price': { 'cbc:PriceAmount': plain(f.price) },
      };
    }),
  };
  return builder.build({ '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' }, [root]: body });
}

function taxCategoryNode(t: PdfTaxEntry, lang: 'en' | 'de'): Node {
  const category = taxCategory(t);
  const exempt = category !== 'S' && category !== 'Z';
  return {
    'cbc:ID': category,
    'cbc:Percent': category === 'O' ? undefined : normalise(t.rate),
    'cbc:TaxExemptionReasonCode': exempt ? opt(t.exemption_reason_code) : undefined,
    'cbc:TaxExemptionReason': exempt
      ? opt(t.exemption_reason ?? defaultExemptionReason(lang, category))
      : undefined,
    'cac:TaxScheme': { 'cbc:ID': 'VAT' },
  };
}

const country = (p: PdfParty, doc: PdfDocument) =>
  (p.country_code || doc.seller.country_code || 'DE').toUpperCase();

function party(p: PdfParty, fallbackCountry: string | null | undefined): Node {
  const schemes: Node[] = [];
  if (p.vat_id)
    schemes.push({
      'cbc:CompanyID': text(p.vat_id.replace(/\s+/g, '')),
      'cac:TaxScheme': { 'cbc:ID': 'VAT' },
    });
  if (p.tax_number)
    schemes.push({ 'cbc:CompanyID': text(p.tax_number), 'cac:TaxScheme': { 'cbc:ID': 'FC' } });
  return {
    'cbc:EndpointID': p.email ? { '@_schemeID': 'EM', '#text': text(p.email) } : undefined,
    'cac:PostalAddress': {
      'cbc:StreetName': opt(p.street),
      'cbc:CityName': opt(p.city),
      'cbc:PostalZone': opt(p.zip),
      // The country is mandatory (BR-9/BR-11); a party without one is assumed domestic.
      'cac:Country': { 'cbc:IdentificationCode': (p.country_code || fallbackCountry || 'DE').toUpperCase() },
    },
    'cac:PartyTaxScheme': schemes.length ? schemes : undefined,
    'cac:PartyLegalEntity': { 'cbc:RegistrationName': text(p.name) },
    'cac:Contact':
      p.attention || p.phone || p.email
        ? {
            'cbc:Name': opt(p.attention),
            'cbc:Telephone': opt(p.phone),
            'cbc:ElectronicMail': opt(p.email),
          }
        : undefined,
  };
}

function paymentMeans(doc: PdfDocument, credit: boolean): Node | undefined {
  const iban = doc.seller.iban?.replace(/\s+/g, '').toUpperCase();
  const due = credit && doc.due_date ? doc.due_date : undefined;
  if (!iban) return due ? { 'cbc:PaymentMeansCode': '1', 'cbc:PaymentDueDate': due } : undefined;
  return {
    'cbc:PaymentMeansCode': '58', // SEPA credit transfer
    'cbc:PaymentDueDate': due,
    'cbc:PaymentID': doc.number ? text(doc.number) : undefined,
    'cac:PayeeFinancialAccount': {
      'cbc:ID': iban,
      'cbc:Name': text(doc.seller.name),
      'cac:FinancialInstitutionBranch': doc.seller.bic
        ? { 'cbc:ID': doc.seller.bic.replace(/\s+/g, '').toUpperCase() }
        : undefined,
    },
  };
}
