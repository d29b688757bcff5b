import { Decimal } from 'decimal.js';

/**
 * Exact money arithmetic. Amounts are integer minor units (cents) in storage and between
 * functions; quantities, tax rates and discounts are decimal strings. Every product goes
 * through decimal.js, never binary floating point.
 */

// A private constructor: the global Decimal settings belong to nobody, and 50 digits hold
// any quantity (13 digits) times any unit price (14 digits) without rounding.
export const Dec = Decimal.clone({ precision: 50, rounding: Decimal.ROUND_HALF_UP });
export type Dec = Decimal;

/**
 * Bounds that keep every amount exact: the largest unit price or single amount, the largest
 * line net, and the largest sum of line nets of one document (the same bound for each tax
 * rate's net and tax). A document's gross is then at most 2 × 10^12 cents; 600 of them (the
 * most children a plan has) stay below Number.MAX_SAFE_INTEGER cents (9 × 10^15) and far
 * below the 64-bit integer columns, so no total is ever rounded by floating point.
 */
export const MAX_UNIT_PRICE = 1_000_000_000;
export const MAX_LINE_NET_CENTS = 100_000_000_000;
export const MAX_DOCUMENT_NET_CENTS = 1_000_000_000_000;

/**
 * A plain decimal text ("-12.50", "19") as an integer of its digits and its number of
 * decimals ({ units: -1250, scale: 2 }), when that integer is exact as a double (at most 15
 * digits, at most 6 decimals); undefined otherwise (an exponent, a sign "+", more digits). The hot paths below
 * (a line net, a tax, a rate's text) compute on these integers, which is exact, and leave the
 * rest to decimal.js; test/unit/money.test.ts checks both give the same on every case.
 */
const PLAIN = /^(-?)(\d+)(?:\.(\d+))?$/;
interface Plain {
  units: number;
  scale: number;
}
function plainOf(text: string): Plain | undefined {
  const m = PLAIN.exec(text);
  if (!m) return undefined;
  const frac = m[3] ?? '';
  if (m[2]!.length + frac.length > 15 || frac.length > 6) return undefined;
  const units = Number(m[2]! + frac);
  return { units: m[1] ? -units : units, scale: frac.length };
}

const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6];

/**
 * n / d rounded half away from zero, exactly: integers below 2^53, d > 0. The remainder and
 * the quotient of a divisible difference are exact in doubles; a BigInt where a product of the
 * callers would not be.
 */
function roundedQuotient(n: number, d: number): number {
  const a = Math.abs(n);
  const r = a % d;
  const q = (a - r) / d + (2 * r >= d ? 1 : 0);
  return (n < 0 ? -q : q) || 0;
}
function roundedQuotientBig(n: bigint, d: bigint): number {
  const a = n < 0n ? -n : n;
  const q = (2n * a + d) / (2n * d);
  return Number(n < 0n ? -q : q) || 0;
}
const fitsExactly = (x: number) => Math.abs(x) <= Number.MAX_SAFE_INTEGER;

/**
 * The exact decimal a JSON number was written as. JSON.parse yields the nearest double and
 * String() gives back the shortest text that maps to it, which is the text the client sent
 * for anything up to 15 significant digits ("33.33", never 33.3299999…).
 */
export function decimalOf(value: number | string): Dec | undefined {
  if (typeof value === 'number' && !Number.isFinite(value)) return undefined;
  try {
    const d = new Dec(typeof value === 'number' ? String(value) : value.trim());
    return d.isFinite() ? d : undefined;
  } catch {
    return undefined;
  }
}

/** `value` with at most `places` decimals, as a canonical string ("1.5", "19", "-2.25"). */
export function exactDecimal(value: number | string, places: number): string | undefined {
  if (typeof value === 'number') {
    // String() of a number is already canonical ("1.5", "-2.25", "0" for -0) when plain.
    const text = String(value);
    const plain = plainOf(text);
    if (plain) return plain.scale > places ? undefined : text;
  }
  const d = decimalOf(value);
  if (!d || d.decimalPlaces() > places) return undefined;
  return d.isZero() ? '0' : d.toString();
}

/** A money value with at most two decimals, in cents; undefined when it has more decimals. */
export function toCents(value: number | string): number | undefined {
  if (typeof value === 'number') {
    const plain = plainOf(String(value));
    // 13 digits and two more for the cents: still exact.
    if (plain && Math.abs(plain.units) < 1e13)
      return plain.scale > 2 ? undefined : plain.units * POW10[2 - plain.scale]! || 0;
  }
  const d = decimalOf(value);
  if (!d || d.decimalPlaces() > 2) return undefined;
  const cents = d.times(100);
  if (cents.abs().greaterThan(Number.MAX_SAFE_INTEGER)) return undefined;
  return cents.toNumber() || 0;
}

/** Cents as the JSON number of the wire format (two decimals at most, exact). */
// IEEE division is correctly rounded: for integer cents below 2^53, cents / 100 is the double
// nearest to the exact quotient, the very number parsing "12.34" gives, without a Decimal.
export const fromCents = (cents: number | string | bigint): number =>
  (typeof cents === 'number' ? cents : Number(cents)) / 100 || 0;

/** Cents as a fixed two-decimal string, e.g. for documents: 123450 -> "1234.50". */
export const centsToString = (cents: number): string => new Dec(cents).div(100).toFixed(2);

/** Rounds an amount in major units half away from zero to whole cents. */
export const roundToCents = (amount: Dec): number =>
  amount.times(100).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber() || 0;

/**
 * An amount in major units that may carry more than two decimals (read from a document), in
 * cents rounded half away from zero; wire amounts go through `toCents`, which refuses them.
 */
export const toCentsRounded = (value: number | string): number => roundToCents(new Dec(String(value)));

/** Line net = quantity × unit price × (1 − discount%), rounded once, half away from zero. */
export function lineNetCents(quantity: string, unitPriceCents: number, discount?: string | null): number {
  const q = plainOf(quantity);
  const off = discount ? plainOf(discount) : { units: 0, scale: 0 };
  if (q && off && Number.isSafeInteger(unitPriceCents)) {
    // net = q.units × price / 10^q.scale × (100·10^off.scale − off.units) / (100·10^off.scale)
    const product = q.units * unitPriceCents;
    if (off.units === 0 && fitsExactly(product)) return roundedQuotient(product, POW10[q.scale]!);
    const keep = BigInt(100 * POW10[off.scale]! - off.units);
    return roundedQuotientBig(
      BigInt(q.units) * BigInt(unitPriceCents) * keep,
      BigInt(POW10[q.scale]!) * BigInt(100 * POW10[off.scale]!),
    );
  }
  let net = new Dec(quantity).times(unitPriceCents).div(100);
  if (discount && !new Dec(discount).isZero()) net = net.times(new Dec(100).minus(discount)).div(100);
  return roundToCents(net);
}

/** Tax on a net sum at a percentage rate, rounded half away from zero to cents. */
export function taxCents(netCents: number, rate: string): number {
  const r = plainOf(rate);
  if (r && Number.isSafeInteger(netCents)) {
    // tax = net × r.units / (100 · 10^r.scale)
    const product = netCents * r.units;
    const d = 100 * POW10[r.scale]!;
    return fitsExactly(product)
      ? roundedQuotient(product, d)
      : roundedQuotientBig(BigInt(netCents) * BigInt(r.units), BigInt(d));
  }
  return roundToCents(new Dec(netCents).times(rate).div(10000));
}

export interface TaxEntry {
  /** Canonical decimal string of the percentage, e.g. "19", "5.5". */
  rate: string;
  net: number;
  tax: number;
}

export interface Totals {
  net: number;
  tax: number;
  gross: number;
  taxes: TaxEntry[];
}

export const ZERO_TOTALS: Totals = Object.freeze({ net: 0, tax: 0, gross: 0, taxes: [] }) as Totals;

/**
 * Decimal.js's text of a number: no leading zeros, no trailing decimal zeros, "0" for zero
 * (below 10^-6 it writes an exponent: such texts take the long way).
 */
const CANONICAL = /^(0|-?[1-9]\d*(\.\d*[1-9])?|-?0\.(?!0{6})\d*[1-9])$/;

const canonicalRate = (rate: string) => {
  if (rate.length <= 15 && CANONICAL.test(rate)) return rate;
  const d = new Dec(rate);
  return d.isZero() ? '0' : d.toString();
};

// Texts of at most 15 digits are distinct, exactly ordered doubles.
const byRate = (a: TaxEntry, b: TaxEntry) =>
  plainOf(a.rate) && plainOf(b.rate)
    ? Math.sign(Number(a.rate) - Number(b.rate))
    : new Dec(a.rate).comparedTo(b.rate);

function fromTaxes(taxes: TaxEntry[]): Totals {
  const sorted = [...taxes].sort(byRate);
  const net = sorted.reduce((s, t) => s + t.net, 0);
  const tax = sorted.reduce((s, t) => s + t.tax, 0);
  return { net, tax, gross: net + tax, taxes: sorted };
}

/**
 * Document totals: line nets (already rounded per line) are summed per tax rate, the tax of
 * each rate is computed on that sum and rounded; gross = net + tax.
 */
export function documentTotals(lines: readonly { net: number; tax_rate: string }[]): Totals {
  const perRate = new Map<string, number>();
  for (const l of lines) {
    const rate = canonicalRate(l.tax_rate);
    perRate.set(rate, (perRate.get(rate) ?? 0) + l.net);
  }
  return fromTaxes([...perRate].map(([rate, net]) => ({ rate, net, tax: taxCents(net, rate) })));
}

function combine(a: Totals, b: Totals, sign: 1 | -1): Totals {
  const perRate = new Map<string, TaxEntry>();
  for (const t of a.taxes) perRate.set(t.rate, { ...t });
  for (const t of b.taxes) {
    const e = perRate.get(t.rate) ?? { rate: t.rate, net: 0, tax: 0 };
    perRate.set(t.rate, { rate: t.rate, net: e.net + sign * t.net, tax: e.tax + sign * t.tax });
  }
  return fromTaxes([...perRate.values()].filter((t) => t.net !== 0 || t.tax !== 0));
}

/** a − b, rate by rate, on the already rounded amounts (so the parts add up to the whole). */
export const subtractTotals = (a: Totals, b: Totals): Totals => combine(a, b, -1);

/** The sum of several documents' totals, rate by rate. */
export const sumTotals = (list: readonly Totals[]): Totals =>
  list.reduce((acc, t) => combine(acc, t, 1), ZERO_TOTALS);

/**
 * Splits `totalCents` in proportion to `weights` (largest remainder): the parts are whole
 * cents and add up to the total exactly. All-zero weights split evenly.
 */
export function allocate(totalCents: number, weights: readonly number[]): number[] {
  if (weights.length === 0) return [];
  const w = weights.every((x) => x === 0) ? weights.map(() => 1) : weights.map((x) => Math.abs(x));
  const sum = w.reduce((s, x) => s + x, 0);
  const sign = totalCents < 0 ? -1 : 1;
  const abs = Math.abs(totalCents);
  const exact = w.map((x) => new Dec(abs).times(x).div(sum));
  const parts = exact.map((x) => x.floor().toNumber());
  let rest = abs - parts.reduce((s, x) => s + x, 0);
  const order = exact
    .map((x, i) => ({ i, frac: x.minus(x.floor()) }))
    .sort((a, b) => b.frac.comparedTo(a.frac) || a.i - b.i);
  for (const { i } of order) {
    if (rest <= 0) break;
    parts[i]! += 1;
    rest -= 1;
  }
  return parts.map((p) => p * sign || 0);
}
