import { Decimal } from 'decimal.js';
import { XMLParser } from 'fast-xml-parser';

/**
 * The ground truth of an EN 16931 XML instance, read by a small reader of its own (not the
 * extractor under test): the business terms the score compares, by their fixed paths.
 */
export interface XmlTruth {
  syntax: 'ubl' | 'cii';
  document_type: 'Invoice' | 'Credit';
  invoice_number?: string;
  date?: string;
  due_date?: string;
  currency?: string;
  net_total?: string;
  tax_total?: string;
  gross_total?: string;
  amount_due?: string;
  supplier_name?: string;
  supplier_vat_id?: string;
  iban?: string;
}

type N = Record<string, unknown>;
const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
});
const at = (node: unknown, ...path: string[]): unknown => {
  let cur: unknown = node;
  for (const p of path) {
    if (Array.isArray(cur)) cur = cur[0];
    cur = cur && typeof cur === 'object' ? (cur as N)[p] : undefined;
  }
  return Array.isArray(cur) ? cur[0] : cur;
};
const all = (v: unknown): unknown[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
const text = (v: unknown): string | undefined => {
  const s = v && typeof v === 'object' ? (v as N)['#text'] : v;
  return s === undefined || s === null || String(s).trim() === '' ? undefined : String(s).trim();
};
const amount = (v: unknown) => {
  const s = text(v);
  return s === undefined ? undefined : new Decimal(s).abs().toFixed(2);
};
const compact = (s: string | undefined) => s?.replace(/\s+/g, '').toUpperCase();
const CREDIT = new Set(['381', '396', '261', '262', '532']);

export function xmlTruth(xml: string): XmlTruth {
  const doc = parser.parse(xml) as N;
  if (doc.Invoice || doc.CreditNote) {
    const root = (doc.Invoice ?? doc.CreditNote) as N;
    const currency = text(root.DocumentCurrencyCode);
    const party = at(root, 'AccountingSupplierParty', 'Party');
    const vat = all((party as N | undefined)?.PartyTaxScheme).find(
      (s) => text(at(s, 'TaxScheme', 'ID')) === 'VAT',
    );
    const tax = all(root.TaxTotal).find((t) => (at(t, 'TaxAmount') as N)?.['@currencyID'] === currency);
    const sums = at(root, 'LegalMonetaryTotal');
    const typeCode = text(root.InvoiceTypeCode) ?? text(root.CreditNoteTypeCode);
    return {
      syntax: 'ubl',
      document_type: doc.CreditNote || CREDIT.has(typeCode ?? '') ? 'Credit' : 'Invoice',
      invoice_number: text(root.ID),
      date: text(root.IssueDate),
      due_date: text(root.DueDate) ?? text(at(root, 'PaymentMeans', 'PaymentDueDate')),
      currency,
      net_total: amount(at(sums, 'TaxExclusiveAmount')),
      tax_total: tax ? amount(at(tax, 'TaxAmount')) : undefined,
      gross_total: amount(at(sums, 'TaxInclusiveAmount')),
      amount_due: amount(at(sums, 'PayableAmount')),
      supplier_name:
        text(at(party, 'PartyLegalEntity', 'RegistrationName')) ?? text(at(party, 'PartyName', 'Name')),
      supplier_vat_id: compact(text(at(vat, 'CompanyID'))),
      iban: compact(text(at(root, 'PaymentMeans', 'PayeeFinancialAccount', 'ID'))),
    };
  }
  const root = doc.CrossIndustryInvoice as N;
  const trade = at(root, 'SupplyChainTradeTransaction');
  const seller = at(trade, 'ApplicableHeaderTradeAgreement', 'SellerTradeParty');
  const settlement = at(trade, 'ApplicableHeaderTradeSettlement');
  const sums = at(settlement, 'SpecifiedTradeSettlementHeaderMonetarySummation');
  const currency = text(at(settlement, 'InvoiceCurrencyCode'));
  const taxes = all((sums as N)?.TaxTotalAmount);
  const tax =
    taxes.find((t) => (t as N)?.['@currencyID'] === currency) ?? (taxes.length === 1 ? taxes[0] : undefined);
  const d = (v: unknown) => {
    const m = /^(\d{4})(\d{2})(\d{2})$/.exec(text(at(v, 'DateTimeString')) ?? '');
    return m ? `${m[1]}-${m[2]}-${m[3]}` : undefined;
  };
  const vat = all((seller as N)?.SpecifiedTaxRegistration).find(
    (r) => (at(r, 'ID') as N)?.['@schemeID'] === 'VA',
  );
  return {
    syntax: 'cii',
    document_type: CREDIT.has(text(at(root, 'ExchangedDocument', 'TypeCode')) ?? '') ? 'Credit' : 'Invoice',
    invoice_number: text(at(root, 'ExchangedDocument', 'ID')),
    date: d(at(root, 'ExchangedDocument', 'IssueDateTime')),
    due_date: d(at(settlement, 'SpecifiedTradePaymentTerms', 'DueDateDateTime')),
    currency,
    net_total: amount(at(sums, 'TaxBasisTotalAmount')),
    tax_total: tax ? amount(tax) : undefined,
    gross_total: amount(at(sums, 'GrandTotalAmount')),
    amount_due: amount(at(sums, 'DuePayableAmount')),
    supplier_name: text(at(seller, 'Name')),
    supplier_vat_id: compact(text(at(vat, 'ID'))),
    iban: compact(
      text(
        at(
          settlement,
          'SpecifiedTradeSettlementPaymentMeans',
          'PayeePartyCreditorFinancialAccount',
          'IBANID',
        ),
      ),
    ),
  };
}
