import type { ExtractionOutcome } from '../extraction.model.js';
import { ciiHeaderFields, inCurrency, tradeTaxes } from './cii.js';
import { attr, decimal, list, type Node, obj, str, toOutcome } from './common.js';
import { perUnit } from './ubl.js';

/**
 * ZUGFeRD 1.0 (`rsm:CrossIndustryDocument`, CII D13B-based): the same parties and taxes as
 * CII, under other element names (`HeaderExchangedDocument`, `…SupplyChainTrade…`).
 */
export function readZugferd1(root: Node): ExtractionOutcome {
  const doc = obj(root.HeaderExchangedDocument);
  const trade = obj(root.SpecifiedSupplyChainTradeTransaction);
  const agreement = obj(trade.ApplicableSupplyChainTradeAgreement);
  const delivery = obj(trade.ApplicableSupplyChainTradeDelivery);
  const settlement = obj(trade.ApplicableSupplyChainTradeSettlement);
  const sums = obj(settlement.SpecifiedTradeSettlementMonetarySummation);
  const fields = ciiHeaderFields(doc, agreement, delivery, settlement);
  return toOutcome({
    method: 'zugferd1',
    typeCode: str(doc.TypeCode),
    fields,
    net: decimal(list(sums.TaxBasisTotalAmount)[0]),
    tax: inCurrency(sums.TaxTotalAmount, fields.currency),
    gross: decimal(list(sums.GrandTotalAmount)[0]),
    prepaid: decimal(sums.TotalPrepaidAmount),
    due: decimal(sums.DuePayableAmount),
    taxes: tradeTaxes(settlement.ApplicableTradeTax),
    lines: list(trade.IncludedSupplyChainTradeLineItem).map((l) => {
      const product = obj(l.SpecifiedTradeProduct);
      const price = obj(list(obj(l.SpecifiedSupplyChainTradeAgreement).NetPriceProductTradePrice)[0]);
      const quantity = obj(obj(l.SpecifiedSupplyChainTradeDelivery).BilledQuantity);
      const lineSettlement = obj(l.SpecifiedSupplyChainTradeSettlement);
      return {
        title: str(product.Name),
        description: str(product.Description),
        quantity: decimal(quantity),
        unit: attr(quantity, 'unitCode'),
        unit_price: perUnit(decimal(price.ChargeAmount), decimal(price.BasisQuantity)),
        net_total: decimal(obj(lineSettlement.SpecifiedTradeSettlementMonetarySummation).LineTotalAmount),
        tax_rate: decimal(obj(list(lineSettlement.ApplicableTradeTax)[0]).ApplicablePercent),
      };
    }),
  });
}
