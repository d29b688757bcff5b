import type { ExtractionOutcome } from '../extraction.model.js';
import { compact, inCurrency, joinLines, lineOf, type RawDocument, toOutcome } from './common.js';
import { decimal, isoDate, list, type Node, obj, str } from './tree.js';

/**
 * UBL 2.1 Invoice or CreditNote (XRechnung UBL, Peppol BIS Billing 3.0), EN 16931 business
 * terms by their UBL paths.
 */
export function readUbl(root: Node, creditNote: boolean): ExtractionOutcome {
  const currency = str(root.DocumentCurrencyCode);
  const party = obj(obj(root.AccountingSupplierParty).Party);
  const address = obj(party.PostalAddress);
  const legal = obj(party.PartyLegalEntity);
  const schemes = list(party.PartyTaxScheme).map((s) => ({
    id: compact(str(s.CompanyID)),
    scheme: str(obj(s.TaxScheme).ID)?.toUpperCase(),
  }));
  const means = list(root.PaymentMeans);
  const account = means.map((m) => obj(m.PayeeFinancialAccount)).find((a) => str(a.ID) !== undefined);
  const period = obj(root.InvoicePeriod);
  const sums = obj(root.LegalMonetaryTotal);
  const taxTotal = inCurrency(
    list(root.TaxTotal).filter((t) => t.TaxSubtotal !== undefined || t.TaxAmount !== undefined),
    currency,
  );
  const taxAmount = inCurrency(
    list(root.TaxTotal).map((t) => obj(t.TaxAmount)),
    currency,
  );
  const lines = list(creditNote ? root.CreditNoteLine : root.InvoiceLine);
  return toOutcome({
    method: 'ubl',
    typeCode: str(creditNote ? root.CreditNoteTypeCode : root.InvoiceTypeCode),
    creditByRoot: creditNote,
    fields: {
      invoice_number: str(root.ID),
      date: isoDate(root.IssueDate),
      due_date: isoDate(root.DueDate) ?? means.map((m) => isoDate(m.PaymentDueDate)).find(Boolean),
      delivery_date: isoDate(obj(list(root.Delivery)[0]).ActualDeliveryDate),
      service_period_start: isoDate(period.StartDate),
      service_period_end: isoDate(period.EndDate),
      currency,
      buyer_reference: str(root.BuyerReference),
      supplier_name: str(legal.RegistrationName) ?? str(obj(party.PartyName).Name),
      supplier_street: joinLines(str(address.StreetName), str(address.AdditionalStreetName)),
      supplier_postcode: str(address.PostalZone),
      supplier_city: str(address.CityName),
      supplier_country: str(obj(address.Country).IdentificationCode)?.toUpperCase(),
      supplier_vat_id: schemes.find((s) => s.scheme === 'VAT')?.id,
      supplier_tax_number: schemes.find((s) => s.scheme !== 'VAT')?.id,
      iban: compact(str(account?.ID)),
      bic: compact(str(obj(account?.FinancialInstitutionBranch).ID)),
      payment_reference: means.map((m) => str(m.PaymentID)).find(Boolean),
    },
    net: decimal(sums.TaxExclusiveAmount),
    tax: taxAmount && str(taxAmount) !== undefined ? decimal(taxAmount) : undefined,
    gross: decimal(sums.TaxInclusiveAmount),
    prepaid: decimal(sums.PrepaidAmount),
    due: decimal(sums.PayableAmount),
    rounding: decimal(sums.PayableRoundingAmount),
    taxes: list(taxTotal?.TaxSubtotal).map((s) => {
      const category = obj(s.TaxCategory);
      return {
        rate: decimal(category.Percent),
        net: decimal(s.TaxableAmount),
        tax: decimal(s.TaxAmount),
        category: str(category.ID),
        exemption_reason: str(category.TaxExemptionReason) ?? str(category.TaxExemptionReasonCode),
      };
    }),
    lines: lines.map((l) => {
      const item = obj(l.Item);
      const price = obj(l.Price);
      return lineOf({
        item,
        quantity: obj(creditNote ? l.CreditedQuantity : l.InvoicedQuantity),
        price: price.PriceAmount,
        baseQuantity: price.BaseQuantity,
        net: l.LineExtensionAmount,
        rate: obj(list(item.ClassifiedTaxCategory)[0]).Percent,
      });
    }),
  } satisfies RawDocument);
}
