import type { Updateable } from 'kysely';
import { isValidBic, isValidIban, isValidVatId } from '../../shared/identifiers.js';
import { toCentsRounded } from '../../shared/money.js';
import type {
  ExtractedFields,
  ExtractionOutcome,
  ExtractionWarning,
  FieldName,
  Provenance,
} from './extraction.model.js';
import type { IncomingInvoiceTable } from './incoming-invoices.tables.js';

/**
 * Turns an extraction outcome into column values of an incoming document, leaving out the
 * fields the caller set (`requestFields`). Pure: createInvoice uses it inside the upload's
 * request, applyExtraction when a job has read the file later.
 *
 * Totals: what was read is stored as read, also when it does not add up (the outcome's
 * `totals_inconsistent` warning says so); a total that was not read is derived only from two
 * others that were (net = gross − tax, tax = gross − net, gross = net + tax), marked
 * `derived: true`. A total neither read nor derivable is not stored: the column keeps 0 and the
 * field is absent from `extracted_fields` and the provenance (a gross-only document is never
 * shown as tax-free). Totals given by the caller replace all extracted ones.
 */
export interface Merged {
  values: Updateable<IncomingInvoiceTable>;
  /** Extracted field names whose values were stored. */
  used: string[];
  provenance: Record<string, Provenance>;
  warnings: ExtractionWarning[];
}

export const TOTALS = ['net_total', 'tax_total', 'gross_total'] as const;

const TEXT_MAX: Partial<Record<FieldName, number>> = {
  invoice_number: 255,
  supplier_name: 255,
  supplier_street: 255,
  supplier_postcode: 32,
  supplier_city: 255,
  supplier_tax_number: 64,
  supplier_vat_id: 64,
  buyer_reference: 200,
  payment_reference: 255,
};
const SIMPLE = [
  'document_type',
  'invoice_number',
  'date',
  'due_date',
  'delivery_date',
  'service_period_start',
  'service_period_end',
  'currency',
  'buyer_reference',
  'supplier_name',
  'supplier_street',
  'supplier_postcode',
  'supplier_city',
  'supplier_country',
  'supplier_vat_id',
  'supplier_tax_number',
  'iban',
  'bic',
  'payment_reference',
] as const satisfies readonly FieldName[];

const DATES = new Set<string>([
  'date',
  'due_date',
  'delivery_date',
  'service_period_start',
  'service_period_end',
]);
/** Amounts of incoming documents are at most 10^11 (see the schemas). */
const MAX_CENTS = 1e13;

export function mergeExtraction(outcome: ExtractionOutcome, requestFields: ReadonlySet<string>): Merged {
  const f: ExtractedFields = outcome.fields;
  const values: Record<string, unknown> = {};
  const used: string[] = [];
  const provenance: Record<string, Provenance> = {};
  const warnings: ExtractionWarning[] = [];
  const take = (name: FieldName, value: unknown, prov = outcome.provenance[name]) => {
    values[name] = value;
    used.push(name);
    provenance[name] = prov ?? { source: 'xml', confidence: 1 };
  };
  const open = (name: FieldName) => f[name] !== undefined && !requestFields.has(name);

  for (const name of SIMPLE) {
    if (!open(name)) continue;
    let value = f[name] as string;
    const max = TEXT_MAX[name];
    if (max !== undefined) value = value.slice(0, max);
    // A payment must never go to a misread account: an IBAN or BIC that fails its check is not stored.
    if ((name === 'iban' && !isValidIban(value)) || (name === 'bic' && !isValidBic(value))) {
      warnings.push({
        code: 'invalid_value',
        field: name,
        message: `${name} ${value} fails its check and was not stored`,
      });
      continue;
    }
    if (name === 'supplier_country' && !/^[A-Z]{2}$/.test(value)) {
      warnings.push({
        code: 'invalid_value',
        field: name,
        message: `${value} is not an ISO 3166 country code`,
      });
      continue;
    }
    if (
      (name === 'currency' && !/^[A-Z]{3}$/.test(value)) ||
      (DATES.has(name) && !/^\d{4}-\d{2}-\d{2}$/.test(value))
    )
      continue;
    if (name === 'supplier_vat_id' && !isValidVatId(value))
      warnings.push({
        code: 'invalid_value',
        field: name,
        message: `VAT id ${value} does not have its country's format`,
      });
    take(name, value);
  }
  for (const name of ['prepaid_total', 'amount_due'] as const)
    if (open(name)) {
      const value = toCentsRounded(f[name]!);
      if (value <= MAX_CENTS) take(name, value);
      else
        warnings.push({
          code: 'invalid_value',
          field: name,
          message: `${name} is beyond the largest amount stored`,
        });
    }
  if (open('taxes') && f.taxes!.length) take('taxes', JSON.stringify(f.taxes));
  if (open('line_items') && f.line_items!.length) take('line_items', JSON.stringify(f.line_items));

  if (!TOTALS.some((t) => requestFields.has(t))) {
    const read = { net: f.net_total, tax: f.tax_total, gross: f.gross_total };
    for (const [key, name] of [
      ['net', 'net_total'],
      ['tax', 'tax_total'],
      ['gross', 'gross_total'],
    ] as const)
      if (read[key] !== undefined) take(name, toCentsRounded(read[key]));
    const derived = (name: FieldName, cents: number, from: FieldName[]) => {
      if (cents < 0) return;
      const confidence = Math.min(...from.map((n) => outcome.provenance[n]?.confidence ?? 1));
      const source = outcome.provenance[from[0]!]?.source ?? 'xml';
      take(name, cents, { source, confidence, derived: true });
    };
    const n = values.net_total as number | undefined;
    const t = values.tax_total as number | undefined;
    const g = values.gross_total as number | undefined;
    if (n === undefined && g !== undefined && t !== undefined)
      derived('net_total', g - t, ['gross_total', 'tax_total']);
    if (t === undefined && g !== undefined && n !== undefined)
      derived('tax_total', g - n, ['gross_total', 'net_total']);
    if (g === undefined && n !== undefined && t !== undefined)
      derived('gross_total', n + t, ['net_total', 'tax_total']);
  }
  return { values: values as Updateable<IncomingInvoiceTable>, used: used.sort(), provenance, warnings };
}
