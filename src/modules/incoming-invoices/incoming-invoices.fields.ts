import { Decimal } from 'decimal.js';
import type { Updateable } from 'kysely';
import { type FieldError, validationFailed } from '../../shared/errors.js';
import { isValidBic, isValidIban, isValidVatId, normalizeIdentifier } from '../../shared/identifiers.js';
import { toCents } from '../../shared/money.js';
import type { ExtractedLine, TaxBreakdown } from './extraction.model.js';
import { EXTRACTABLE, type IncomingInvoiceCreate } from './incoming-invoices.schemas.js';
import type { IncomingInvoiceTable } from './incoming-invoices.tables.js';

type Body = Omit<IncomingInvoiceCreate, 'bookings' | 'status' | 'file_was_preprocessed'>;

/** The extractable fields a request sets explicitly: extraction never overwrites them. */
export const requestFieldsOf = (body: object): string[] =>
  EXTRACTABLE.filter((k) => (body as Record<string, unknown>)[k] !== undefined).sort();

/**
 * Checks the request fields no schema can: IBAN check digits, BIC and VAT id formats, a
 * service period that ends before it starts (against the stored dates on PATCH).
 */
export function checkFields(
  body: Body,
  current?: { service_period_start: string | null; service_period_end: string | null },
) {
  const errors: FieldError[] = [];
  if (body.iban && !isValidIban(body.iban))
    errors.push({ field: 'iban', message: 'is not a valid IBAN (country, length or check digits)' });
  if (body.bic && !isValidBic(body.bic)) errors.push({ field: 'bic', message: 'is not a valid BIC' });
  if (body.supplier_vat_id && !isValidVatId(body.supplier_vat_id))
    errors.push({ field: 'supplier_vat_id', message: "does not have its country's VAT id format" });
  const start =
    body.service_period_start !== undefined ? body.service_period_start : current?.service_period_start;
  const end = body.service_period_end !== undefined ? body.service_period_end : current?.service_period_end;
  if (start && end && end < start)
    errors.push({ field: 'service_period_end', message: 'is before service_period_start' });
  if (errors.length) throw validationFailed(errors, errors[0]!.message);
}

const dec = (v: number | undefined, places?: number) =>
  v === undefined
    ? undefined
    : places === undefined
      ? new Decimal(String(v)).toFixed()
      : new Decimal(String(v)).toFixed(places);
const strip = <T extends object>(o: T) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

/** Column values of the fields added for issue 11, as a request gives them (undefined: not given). */
export function requestColumns(body: Body): Updateable<IncomingInvoiceTable> {
  const id = (v: string | null | undefined) => (v === undefined || v === null ? v : normalizeIdentifier(v));
  // Wire amounts (schema Amount: two decimals, at most 10^11), so toCents answers.
  const money = (v: number | null | undefined) => (v === undefined || v === null ? v : toCents(v)!);
  return strip({
    delivery_date: body.delivery_date,
    service_period_start: body.service_period_start,
    service_period_end: body.service_period_end,
    prepaid_total: money(body.prepaid_total),
    amount_due: money(body.amount_due),
    buyer_reference: body.buyer_reference,
    supplier_street: body.supplier_street,
    supplier_postcode: body.supplier_postcode,
    supplier_city: body.supplier_city,
    supplier_country: body.supplier_country,
    supplier_tax_number: body.supplier_tax_number,
    supplier_vat_id: id(body.supplier_vat_id),
    iban: id(body.iban),
    bic: id(body.bic),
    payment_reference: body.payment_reference,
    taxes:
      body.taxes === undefined || body.taxes === null
        ? body.taxes
        : JSON.stringify(
            body.taxes.map(
              (t): TaxBreakdown =>
                strip({
                  rate: dec(t.rate)!,
                  net: dec(t.net, 2)!,
                  tax: dec(t.tax, 2)!,
                  category: t.category,
                  exemption_reason: t.exemption_reason,
                }),
            ),
          ),
    line_items:
      body.line_items === undefined || body.line_items === null
        ? body.line_items
        : JSON.stringify(
            body.line_items.map(
              (l): ExtractedLine =>
                strip({
                  title: l.title,
                  description: l.description,
                  quantity: dec(l.quantity),
                  unit: l.unit,
                  unit_price: dec(l.unit_price),
                  net_total: dec(l.net_total, 2),
                  tax_rate: dec(l.tax_rate),
                }),
            ),
          ),
  });
}
