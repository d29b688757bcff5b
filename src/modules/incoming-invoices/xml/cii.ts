import type { ExtractionOutcome } from '../extraction.model.js';
import {
  attr,
  compact,
  decimal,
  isoDate,
  joinLines,
  list,
  type Node,
  obj,
  type RawDocument,
  str,
  toOutcome,
} from './common.js';
import { perUnit } from './ubl.js';

/** A CII date (`udt:DateTimeString format="102"`, or a plain date). */
export const ciiDate = (v: unknown) => isoDate(obj(v).DateTimeString ?? v);

/** The amount in the document currency where a total is repeated in the tax currency. */
export const inCurrency = (v: unknown, currency: string | undefined) => {
  const nodes = list(v);
  return decimal(nodes.find((n) => currency !== undefined && attr(n, 'currencyID') === currency) ?? nodes[0]);
};

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
 * The header fields CII and ZUGFeRD 1 spell alike, once each syntax has found its own header
 * nodes (ZUGFeRD 1 names the trade agreement, delivery and settlement differently).
 */
export function ciiHeaderFields(doc: Node, agreement: Node, delivery: Node, settlement: Node) {
  const period = obj(settlement.BillingSpecifiedPeriod);
  return {
    invoice_number: str(doc.ID),
    date: ciiDate(doc.IssueDateTime),
    due_date: list(settlement.SpecifiedTradePaymentTerms)
      .map((t) => ciiDate(t.DueDateDateTime))
      .find(Boolean),
    delivery_date: ciiDate(obj(obj(delivery.ActualDeliverySupplyChainEvent).OccurrenceDateTime)),
    service_period_start: ciiDate(period.StartDateTime),
    service_period_end: ciiDate(period.EndDateTime),
    currency: str(settlement.InvoiceCurrencyCode),
    buyer_reference: str(agreement.BuyerReference),
    ...sellerFields(obj(agreement.SellerTradeParty)),
    ...paymentFields(settlement),
  };
}

/** UN/CEFACT CII D16B: XRechnung CII, Factur-X and ZUGFeRD 2.x. */
export function readCii(root: Node): ExtractionOutcome {
  const doc = obj(root.ExchangedDocument);
  const trade = obj(root.SupplyChainTradeTransaction);
  const agreement = obj(trade.ApplicableHeaderTradeAgreement);
  const delivery = obj(trade.ApplicableHeaderTradeDelivery);
  const settlement = obj(trade.ApplicableHeaderTradeSettlement);
  const sums = obj(settlement.SpecifiedTradeSettlementHeaderMonetarySummation);
  const fields = ciiHeaderFields(doc, agreement, delivery, settlement);
  return toOutcome({
    method: 'cii',
    typeCode: str(doc.TypeCode),
    fields,
    net: decimal(sums.TaxBasisTotalAmount),
    tax: inCurrency(sums.TaxTotalAmount, fields.currency),
    gross: decimal(sums.GrandTotalAmount),
    prepaid: decimal(sums.TotalPrepaidAmount),
    due: decimal(sums.DuePayableAmount),
    rounding: decimal(sums.RoundingAmount),
    taxes: tradeTaxes(settlement.ApplicableTradeTax),
    lines: list(trade.IncludedSupplyChainTradeLineItem).map((l) => {
      const product = obj(l.SpecifiedTradeProduct);
      const price = obj(obj(l.SpecifiedLineTradeAgreement).NetPriceProductTradePrice);
      const quantity = obj(obj(l.SpecifiedLineTradeDelivery).BilledQuantity);
      const lineSettlement = obj(l.SpecifiedLineTradeSettlement);
      return {
        title: str(product.Name),
        description: str(product.Description),
        quantity: decimal(quantity),
        unit: attr(quantity, 'unitCode'),
        unit_price: perUnit(decimal(price.ChargeAmount), decimal(price.BasisQuantity)),
        net_total: decimal(obj(lineSettlement.SpecifiedTradeSettlementLineMonetarySummation).LineTotalAmount),
        tax_rate: decimal(obj(list(lineSettlement.ApplicableTradeTax)[0]).RateApplicablePercent),
      };
    }),
  });
}
