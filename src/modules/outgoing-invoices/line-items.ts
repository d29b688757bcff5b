import { type Static, Type } from 'typebox';
import type { Db } from '../../db/index.js';
import type { AuthContext } from '../../plugins/auth.js';
import { type FieldError, validationFailed } from '../../shared/errors.js';
import {
  centsToString,
  exactDecimal,
  lineNetCents,
  MAX_DOCUMENT_NET_CENTS,
  MAX_LINE_NET_CENTS,
  MAX_UNIT_PRICE,
  type TaxEntry,
  type Totals,
  toCents,
} from '../../shared/money.js';
import type { Page } from '../../shared/paging.js';
import { Id, Nullable } from '../../shared/schemas.js';
import type { DocumentItemColumns } from './invoices.tables.js';

/**
 * Line items of invoice documents (outgoing invoices and offers): the wire schemas, exact
 * parsing of the numbers a client sends, and the mapping back to the wire.
 */

/**
 * Money on the wire (answers): a number with at most two decimals. Not the shared `Money`
 * schema: its `multipleOf: 0.01` is checked with binary floats, so 1.13 fails it, and
 * fast-json-stringify runs that check whenever the schema sits inside a union (Nullable).
 */
export const Amount = Type.Number({ description: 'Amount in the document currency, at most two decimals' });

// No `multipleOf` here either: Ajv checks it with binary floats (1.13 / 0.01 fails). The decimals
// are checked exactly by parseLineItems instead. The bounds keep totals exact (shared/money.ts).
export const MoneyInput = (description: string) =>
  Type.Number({
    minimum: -MAX_UNIT_PRICE,
    maximum: MAX_UNIT_PRICE,
    description: `${description}; at most two decimals`,
  });
const Percent = (description: string) =>
  Type.Number({ minimum: 0, maximum: 100, description: `${description} in percent, at most two decimals` });

export const LineItemInput = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 255 }),
    description: Type.Optional(Nullable(Type.String({ maxLength: 10000 }))),
    quantity: Type.Number({
      minimum: -1e9,
      maximum: 1e9,
      description: `At most four decimals, taken exactly as written (1.5 h). The line net (quantity × unit_price less the discount) may be at most ${centsToString(MAX_LINE_NET_CENTS)} either way, the lines of a document at most ${centsToString(MAX_DOCUMENT_NET_CENTS)} in sum (422).`,
    }),
    unit: Type.Optional(Nullable(Type.String({ maxLength: 32, description: 'e.g. h, pcs, day' }))),
    unit_price: MoneyInput('Net price of one unit'),
    tax_rate: Percent('Tax rate'),
    discount: Type.Optional(Nullable(Percent('Discount on the line'))),
  },
  { additionalProperties: false },
);
export type LineItemInput = Static<typeof LineItemInput>;

export const MAX_LINE_ITEMS = 500;
export const LineItemsInput = Type.Array(LineItemInput, { maxItems: MAX_LINE_ITEMS });

export const LineItem = Type.Object(
  {
    id: Id,
    position: Type.Integer({ minimum: 1 }),
    title: Type.String(),
    description: Nullable(Type.String()),
    quantity: Type.Number(),
    unit: Nullable(Type.String()),
    unit_price: Amount,
    tax_rate: Type.Number(),
    discount: Nullable(Type.Number()),
    net_total: Amount,
  },
  { $id: 'LineItem' },
);
export type LineItem = Static<typeof LineItem>;

export const TaxEntrySchema = Type.Object({
  rate: Type.Number({ description: 'Tax rate in percent' }),
  net: Amount,
  tax: Amount,
});

export const TotalsProps = {
  net_total: Amount,
  tax_total: Amount,
  gross_total: Amount,
  taxes: Type.Array(TaxEntrySchema, { description: 'One entry per tax rate, ascending' }),
};

/** A line as stored: exact strings and cents (the item columns without ids and position). */
export type ParsedLine = Omit<DocumentItemColumns, 'id' | 'account_id' | 'position'>;

/** The stored columns of an item row that the domain needs. */
export interface StoredLine extends ParsedLine {
  id: number;
  position: number;
}

/**
 * Parses wire line items exactly, naming every bad field (`line_items.2.quantity`).
 * Throws a 422 listing all of them.
 */
export function parseLineItems(items: readonly LineItemInput[], field = 'line_items'): ParsedLine[] {
  const errors: FieldError[] = [];
  const out = items.map((item, i) => {
    const at = (name: string, message: string) => errors.push({ field: `${field}.${i}.${name}`, message });
    const quantity = exactDecimal(item.quantity, 4);
    if (quantity === undefined) at('quantity', 'must have at most four decimals');
    const unitPrice = toCents(item.unit_price);
    if (unitPrice === undefined) at('unit_price', 'must have at most two decimals');
    const rate = exactDecimal(item.tax_rate, 2);
    if (rate === undefined) at('tax_rate', 'must have at most two decimals');
    let discount: string | null = null;
    if (item.discount !== undefined && item.discount !== null) {
      const d = exactDecimal(item.discount, 2);
      if (d === undefined) at('discount', 'must have at most two decimals');
      else discount = d === '0' ? null : d;
    }
    const q = quantity ?? '0';
    const p = unitPrice ?? 0;
    const net = lineNetCents(q, p, discount);
    if (Math.abs(net) > MAX_LINE_NET_CENTS)
      at('quantity', `quantity × unit_price gives a line net beyond ${centsToString(MAX_LINE_NET_CENTS)}`);
    return {
      title: item.title,
      description: item.description ?? null,
      quantity: q,
      unit: item.unit ?? null,
      unit_price: p,
      tax_rate: rate ?? '0',
      discount,
      net_total: net,
    };
  });
  const sum = out.reduce((s, l) => s + Math.abs(l.net_total), 0);
  if (errors.length === 0 && sum > MAX_DOCUMENT_NET_CENTS)
    errors.push({
      field,
      message: `the line nets add up to more than ${centsToString(MAX_DOCUMENT_NET_CENTS)}`,
    });
  if (errors.length > 0) throw validationFailed(errors);
  return out;
}

/**
 * The item rows of a document's lines: `owner` (account and document ids), positions 1…n.
 * Written out, not spread: two spreads into one literal made each row an object of a shape of
 * its own, 1.9 µs a line (issue 15; a create of three lines built them twice).
 */
export const positioned = <O extends object>(lines: readonly ParsedLine[], owner: O) =>
  lines.map((l, i) =>
    Object.assign(
      {
        title: l.title,
        description: l.description,
        quantity: l.quantity,
        unit: l.unit,
        unit_price: l.unit_price,
        tax_rate: l.tax_rate,
        discount: l.discount,
        net_total: l.net_total,
      },
      owner,
      { position: i + 1 },
    ),
  );

/** A single-line lump sum (deposits, lump-sum partials) at one tax rate. */
export function lumpSumLine(title: string, cents: number, taxRate: string): ParsedLine {
  return {
    title,
    description: null,
    quantity: '1',
    unit: null,
    unit_price: cents,
    tax_rate: taxRate,
    discount: null,
    net_total: cents,
  };
}

/**
 * Cents as the JSON number of the wire format: what `fromCents` gives, without a decimal
 * object per amount (a list of invoices writes hundreds). Both operands are exact doubles, so
 * the quotient is the double nearest to the exact value, as decimal.js's `toNumber` returns.
 */
export const amountOf = (cents: number): number => cents / 100 || 0;

export function toLineItem(r: StoredLine): LineItem {
  return {
    id: r.id,
    position: r.position,
    title: r.title,
    description: r.description,
    quantity: Number(r.quantity),
    unit: r.unit,
    unit_price: amountOf(Number(r.unit_price)),
    tax_rate: Number(r.tax_rate),
    discount: r.discount === null ? null : Number(r.discount),
    net_total: amountOf(Number(r.net_total)),
  };
}

type PageQuery = { page?: number; per_page?: number };

/**
 * The service function of GET …/{id}/line-items: `find` answers the 404 of a document that is
 * not there, `page` reads its item rows.
 */
export const lineItemsOf =
  (
    find: (db: Db, auth: AuthContext, id: number) => Promise<unknown>,
    page: (db: Db, accountId: number, id: number, q: PageQuery) => Promise<Page<StoredLine>>,
  ) =>
  async (db: Db, auth: AuthContext, id: number, q: PageQuery): Promise<Page<LineItem>> => {
    await find(db, auth, id);
    const items = await page(db, auth.accountId, id, q);
    return { ...items, rows: items.rows.map(toLineItem) };
  };

export interface TotalsWire {
  net_total: number;
  tax_total: number;
  gross_total: number;
  taxes: { rate: number; net: number; tax: number }[];
}

export const taxEntryToWire = (t: TaxEntry) => ({
  rate: Number(t.rate),
  net: amountOf(t.net),
  tax: amountOf(t.tax),
});

export function totalsToWire(t: Totals): TotalsWire {
  return {
    net_total: amountOf(t.net),
    tax_total: amountOf(t.tax),
    gross_total: amountOf(t.gross),
    taxes: t.taxes.map(taxEntryToWire),
  };
}
