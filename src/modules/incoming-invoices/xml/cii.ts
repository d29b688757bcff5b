import type { ExtractionOutcome } from '../extraction.model.js';
import { compact, inCurrency, joinLines, lineOf, type RawDocument, toOutcome } from './common.js';
import { attr, decimal, isoDate, list, type Node, obj, str } from './tree.js';

/** A CII date (`udt:DateTimeString format="102"`, or a plain date). */
export const ciiDate = (v: unknown) => isoDate(obj(v).DateTimeString ?? v);

/** Seller fields of a CII-family TradeParty (CII D16B and ZUGFeRD 1 share its shape). */
export function sellerFields(party: Node): RawDocument['fields'] {
  const address = obj(party.PostalTradeAddress);
  const registrations = list(party.SpecifiedTaxRegistration).map((r) => ({
    id: compact(str(r.ID)),
    scheme: attr(r.ID, 'schemeID')?.toUpperCase(),
  }));
  return {
    supplier_name: str(party.Name),
    supplier_street: joinLines(str(address.LineOne), str(address.LineTwo), str(address.LineThree)),
    supplier_postcode: str(address.PostcodeCode),
    supplier_city: str(address.CityName),
    supplier_country: str(address.CountryID)?.toUpperCase(),
    supplier_vat_id: registrations.find((r) => r.scheme === 'VA')?.id,
    supplier_tax_number: registrations.find((r) => r.scheme === 'FC')?.id,
  };
}

/** IBAN, BIC and payment reference of a CII-family settlement. */
export function paymentFields(settlement: Node): RawDocument['fields'] {
  const means = list(settlement.SpecifiedTradeSettlementPaymentMeans);
  const withAccount =
    means.find((m) => str(obj(m.PayeePartyCreditorFinancialAccount).IBANID) !== undefined) ??
    means.find((m) => str(obj(m.PayeePartyCreditorFinancialAccount).ProprietaryID) !== undefined);
  const account = obj(withAccount?.PayeePartyCreditorFinancialAccount);
  return {
    iban: compact(str(account.IBANID)),
    bic: compact(str(obj(withAccount?.PayeeSpecifiedCreditorFinancialInstitution).BICID)),
    payment_reference: str(settlement.PaymentReference),
  };
}

/** The VAT breakdown (`ram:ApplicableTradeTax`); ZUGFeRD 1 names the rate `ApplicablePercent`. */
export const tradeTaxes = (v: unknown): RawDocument['taxes'] =>
  list(v)
    .filter((t) => (str(t.TypeCode) ?? 'VAT').toUpperCase() === 'VAT')
    .map((t) => ({
      rate: decimal(t.RateApplicablePercent ?? t.ApplicablePercent),
      net: decimal(t.BasisAmount),
      tax: decimal(t.CalculatedAmount),
      category: str(t.CategoryCode),
      exemption_reason: str(t.ExemptionReason) ?? str(t.ExemptionReasonCode),
    }));

/**
 * The element names of a CII-family syntax. ZUGFeRD 1.0 (`rsm:CrossIndustryDocument`, CII
 * D13B-based) has the parties, taxes and sums of CII D16B under other names.
 */
interface CiiNames {
  method: 'cii' | 'zugferd1';
  document: string;
  transaction: string;
  agreement: string;
  delivery: string;
  settlement: string;
  sums: string;
  /** Rounding amount (BT-114): CII D16B only. */
  rounding?: string;
  lineAgreement: string;
  lineDelivery: string;
  lineSettlement: string;
  lineSums: string;
  lineRate: string;
}

const CII: CiiNames = {
  method: 'cii',
  document: 'ExchangedDocument',
  transaction: 'SupplyChainTradeTransaction',
  agreement: 'ApplicableHeaderTradeAgreement',
  delivery: 'ApplicableHeaderTradeDelivery',
  settlement: 'ApplicableHeaderTradeSettlement',
  sums: 'SpecifiedTradeSettlementHeaderMonetarySummation',
  rounding: 'RoundingAmount',
  lineAgreement: 'SpecifiedLineTradeAgreement',
  lineDelivery: 'SpecifiedLineTradeDelivery',
  lineSettlement: 'SpecifiedLineTradeSettlement',
  lineSums: 'SpecifiedTradeSettlementLineMonetarySummation',
  lineRate: 'RateApplicablePercent',
};

const ZUGFERD1: CiiNames = {
  method: 'zugferd1',
  document: 'HeaderExchangedDocument',
  transaction: 'SpecifiedSupplyChainTradeTransaction',
  agreement: 'ApplicableSupplyChainTradeAgreement',
  delivery: 'ApplicableSupplyChainTradeDelivery',
  settlement: 'ApplicableSupplyChainTradeSettlement',
  sums: 'SpecifiedTradeSettlementMonetarySummation',
  lineAgreement: 'SpecifiedSupplyChainTradeAgreement',
  lineDelivery: 'SpecifiedSupplyChainTradeDelivery',
  lineSettlement: 'SpecifiedSupplyChainTradeSettlement',
  lineSums: 'SpecifiedTradeSettlementMonetarySummation',
  lineRate: 'ApplicablePercent',
};

function readCiiFamily(root: Node, n: CiiNames): ExtractionOutcome {
  const doc = obj(root[n.document]);
  const trade = obj(root[n.transaction]);
  const agreement = obj(trade[n.agreement]);
  const delivery = obj(trade[n.delivery]);
  const settlement = obj(trade[n.settlement]);
  const sums = obj(settlement[n.sums]);
  const period = obj(settlement.BillingSpecifiedPeriod);
  const currency = str(settlement.InvoiceCurrencyCode);
  return toOutcome({
    method: n.method,
    typeCode: str(doc.TypeCode),
    fields: {
      invoice_number: str(doc.ID),
      date: ciiDate(doc.IssueDateTime),
      due_date: list(settlement.SpecifiedTradePaymentTerms)
        .map((t) => ciiDate(t.DueDateDateTime))
        .find(Boolean),
      delivery_date: ciiDate(obj(obj(delivery.ActualDeliverySupplyChainEvent).OccurrenceDateTime)),
      service_period_start: ciiDate(period.StartDateTime),
      service_period_end: ciiDate(period.EndDateTime),
      currency,
      buyer_reference: str(agreement.BuyerReference),
      ...sellerFields(obj(agreement.SellerTradeParty)),
      ...paymentFields(settlement),
    },
    net: decimal(sums.TaxBasisTotalAmount),
    tax: decimal(inCurrency(list(sums.TaxTotalAmount), currency)),
    gross: decimal(sums.GrandTotalAmount),
    prepaid: decimal(sums.TotalPrepaidAmount),
    due: decimal(sums.DuePayableAmount),
    rounding: n.rounding === undefined ? undefined : decimal(sums[n.rounding]),
    taxes: tradeTaxes(settlement.ApplicableTradeTax),
    lines: list(trade.IncludedSupplyChainTradeLineItem).map((l) => {
      const price = obj(obj(l[n.lineAgreement]).NetPriceProductTradePrice);
      const lineSettlement = obj(l[n.lineSettlement]);
      return lineOf({
        item: obj(l.SpecifiedTradeProduct),
        quantity: obj(obj(l[n.lineDelivery]).BilledQuantity),
        price: price.ChargeAmount,
        baseQuantity: price.BasisQuantity,
        net: obj(lineSettlement[n.lineSums]).LineTotalAmount,
        rate: obj(list(lineSettlement.ApplicableTradeTax)[0])[n.lineRate],
      });
    }),
  });
}

/** UN/CEFACT CII D16B: XRechnung CII, Factur-X and ZUGFeRD 2.x. */
export const readCii = (root: Node): ExtractionOutcome => readCiiFamily(root, CII);

/** ZUGFeRD 1.0: CII D13B element names. */
export const readZugferd1 = (root: Node): ExtractionOutcome => readCiiFamily(root, ZUGFERD1);
