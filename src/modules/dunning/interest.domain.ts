/**
 * Statutory default interest (§ 288 BGB) on an overdue amount, exact to the cent.
 *
 * The rule: the base rate (Basiszinssatz, § 247 BGB) plus 9 percentage points for a business
 * client, plus 5 for a consumer; day by day on the amount open that day, each day at the rate
 * in force that day, actual days / 365 (a leap year's 29 February is a day like any other and
 * the divisor stays 365); the days' amounts are summed unrounded and the sum is rounded half
 * up to the cent once.
 *
 * Arithmetic is on integers: a rate is kept in hundredths of a percent, so a period's exact
 * interest is open_cents × rate_bp × days / 3,650,000 cents, and the numerators are summed as
 * BigInts before the one division.
 */

/** A base rate from `valid_from` (YYYY-MM-DD) on, in percent with at most two decimals. */
export interface BaseRate {
  valid_from: string;
  rate: string;
}

/** Money that lowered the open amount on `date` (cents > 0). */
export interface Reduction {
  date: string;
  cents: number;
}

export interface InterestInput {
  /** What the invoice claims (cents). */
  amountCents: number;
  /** Payments and credits settled, with the day each was received. */
  reductions: readonly Reduction[];
  /** Interest runs from the day after this one. */
  dueDate: string;
  /** …to this day (the letter's date), inclusive. */
  until: string;
  consumer: boolean;
  baseRates: readonly BaseRate[];
}

/** One stretch of days with the same open amount and the same rate. */
export interface InterestPeriod {
  from: string;
  to: string;
  days: number;
  /** The open amount of each of these days (cents). */
  open_cents: number;
  /** The base rate in force and the default rate charged (percent, e.g. "3.37", "12.37"). */
  base_rate: string;
  rate: string;
  /** This period's interest rounded to cents, for display; the total is rounded only once. */
  cents: number;
  /** This period's exact interest in major units, six decimals. */
  exact: string;
}

export interface InterestResult {
  cents: number;
  periods: InterestPeriod[];
}

/** Percentage points over the base rate: § 288 (2) for businesses, § 288 (1) for consumers. */
export const SURCHARGE_BP = { business: 900, consumer: 500 } as const;
const DIVISOR = 3_650_000n; // 365 days × 100 (percent) × 100 (hundredths)

const DAY_MS = 86_400_000;
const toDay = (iso: string): number => Date.parse(`${iso}T00:00:00Z`) / DAY_MS;
const fromDay = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);
export const addDays = (iso: string, days: number): string => fromDay(toDay(iso) + days);
/** Days from a to b (b − a), both YYYY-MM-DD. */
export const daysBetween = (a: string, b: string): number => toDay(b) - toDay(a);

const RATE = /^(-?)(\d{1,3})(?:\.(\d{1,2}))?$/;

/** A percentage with at most two decimals as hundredths ("-0.88" → -88); undefined otherwise. */
export function basisPoints(rate: string): number | undefined {
  const m = RATE.exec(rate);
  if (!m) return undefined;
  const bp = Number(m[2]) * 100 + Number((m[3] ?? '').padEnd(2, '0'));
  return m[1] ? -bp : bp;
}

/** Hundredths of a percent as its canonical text (-88 → "-0.88", 1237 → "12.37"). */
export function percentText(bp: number): string {
  const sign = bp < 0 ? '-' : '';
  const abs = Math.abs(bp);
  const whole = Math.floor(abs / 100);
  const frac = abs % 100;
  return `${sign}${whole}${frac === 0 ? '' : `.${String(frac).padStart(2, '0').replace(/0$/, '')}`}`;
}

/** n / d rounded half up (n ≥ 0), d > 0. */
const roundHalfUp = (n: bigint, d: bigint): number => Number((2n * n + d) / (2n * d));

/** n / d cents in major units with six decimals, truncated (n ≥ 0; display only). */
function sixPlaces(n: bigint, d: bigint): string {
  const micro = ((n * 10_000n) / d).toString().padStart(7, '0');
  return `${micro.slice(0, -6)}.${micro.slice(-6)}`;
}

/** The base rate in force on `day`: the last entry whose `valid_from` is not after it. */
export function baseRateOn(rates: readonly BaseRate[], day: string): BaseRate | undefined {
  let found: BaseRate | undefined;
  for (const r of rates) if (r.valid_from <= day && (!found || r.valid_from > found.valid_from)) found = r;
  return found;
}

/** Thrown when a day of the period has no base rate in the table (a day before 2002). */
export class NoBaseRate extends Error {
  constructor(readonly day: string) {
    super(`No base rate is known for ${day}`);
  }
}

/**
 * The default interest of `input`: zero when the period is empty (the letter is dated on or
 * before the due date) or nothing was open. A payment received on day P lowers the open
 * amount from P + 1 on: on the day of payment the money was still owed.
 */
export function defaultInterest(input: InterestInput): InterestResult {
  const start = addDays(input.dueDate, 1);
  const end = input.until;
  if (end < start) return { cents: 0, periods: [] };
  const surcharge = input.consumer ? SURCHARGE_BP.consumer : SURCHARGE_BP.business;

  // Every day on which the rate or the open amount may change starts a new stretch.
  const cuts = new Set<string>([start]);
  for (const r of input.baseRates) if (r.valid_from > start && r.valid_from <= end) cuts.add(r.valid_from);
  for (const p of input.reductions) {
    const from = addDays(p.date, 1);
    if (from > start && from <= end) cuts.add(from);
  }
  const starts = [...cuts].sort();

  const openOn = (day: string) =>
    input.reductions.reduce((open, p) => (p.date < day ? open - p.cents : open), input.amountCents);

  const periods: InterestPeriod[] = [];
  let total = 0n;
  let last: (InterestPeriod & { numerator: bigint; baseBp: number }) | undefined;
  const flush = () => {
    if (!last) return;
    const { numerator, baseBp: _b, ...period } = last;
    periods.push({
      ...period,
      cents: roundHalfUp(numerator, DIVISOR),
      exact: sixPlaces(numerator, DIVISOR),
    });
    last = undefined;
  };
  starts.forEach((from, i) => {
    const to = i + 1 < starts.length ? addDays(starts[i + 1]!, -1) : end;
    const base = baseRateOn(input.baseRates, from);
    if (!base) throw new NoBaseRate(from);
    const baseBp = basisPoints(base.rate);
    if (baseBp === undefined) throw new Error(`Base rate ${base.rate} is not a percentage`);
    const open = openOn(from);
    const days = daysBetween(from, to) + 1;
    const rateBp = baseBp + surcharge;
    if (open <= 0 || rateBp <= 0) {
      flush();
      return;
    }
    const numerator = BigInt(open) * BigInt(rateBp) * BigInt(days);
    total += numerator;
    // An unchanged rate on a new half-year continues the stretch: one line on the letter.
    if (last && last.open_cents === open && last.baseBp === baseBp && addDays(last.to, 1) === from) {
      last.to = to;
      last.days += days;
      last.numerator += numerator;
      return;
    }
    flush();
    last = {
      from,
      to,
      days,
      open_cents: open,
      base_rate: percentText(baseBp),
      rate: percentText(rateBp),
      cents: 0,
      exact: '',
      numerator,
      baseBp,
    };
  });
  flush();
  return { cents: roundHalfUp(total, DIVISOR), periods };
}

/**
 * The base rates published by the Deutsche Bundesbank since the rule began (1 January 2002),
 * one entry per half-year. An account adds later ones with PUT /dunning/base-rates/{valid_from}.
 */
export const SHIPPED_BASE_RATES: readonly BaseRate[] = Object.freeze(
  (
    [
      ['2002-01-01', '2.57'],
      ['2002-07-01', '2.47'],
      ['2003-01-01', '1.97'],
      ['2003-07-01', '1.22'],
      ['2004-01-01', '1.14'],
      ['2004-07-01', '1.13'],
      ['2005-01-01', '1.21'],
      ['2005-07-01', '1.17'],
      ['2006-01-01', '1.37'],
      ['2006-07-01', '1.95'],
      ['2007-01-01', '2.7'],
      ['2007-07-01', '3.19'],
      ['2008-01-01', '3.32'],
      ['2008-07-01', '3.19'],
      ['2009-01-01', '1.62'],
      ['2009-07-01', '0.12'],
      ['2010-01-01', '0.12'],
      ['2010-07-01', '0.12'],
      ['2011-01-01', '0.12'],
      ['2011-07-01', '0.37'],
      ['2012-01-01', '0.12'],
      ['2012-07-01', '0.12'],
      ['2013-01-01', '-0.13'],
      ['2013-07-01', '-0.38'],
      ['2014-01-01', '-0.63'],
      ['2014-07-01', '-0.73'],
      ['2015-01-01', '-0.83'],
      ['2015-07-01', '-0.83'],
      ['2016-01-01', '-0.83'],
      ['2016-07-01', '-0.88'],
      ['2017-01-01', '-0.88'],
      ['2017-07-01', '-0.88'],
      ['2018-01-01', '-0.88'],
      ['2018-07-01', '-0.88'],
      ['2019-01-01', '-0.88'],
      ['2019-07-01', '-0.88'],
      ['2020-01-01', '-0.88'],
      ['2020-07-01', '-0.88'],
      ['2021-01-01', '-0.88'],
      ['2021-07-01', '-0.88'],
      ['2022-01-01', '-0.88'],
      ['2022-07-01', '-0.88'],
      ['2023-01-01', '1.62'],
      ['2023-07-01', '3.12'],
      ['2024-01-01', '3.62'],
      ['2024-07-01', '3.37'],
      ['2025-01-01', '2.27'],
      ['2025-07-01', '1.27'],
      ['2026-01-01', '1.27'],
    ] as const
  ).map(([valid_from, rate]) => Object.freeze({ valid_from, rate })),
);

/** The shipped table with an account's own entries, which win on the same date; by date. */
export function mergeBaseRates(own: readonly BaseRate[]): (BaseRate & { source: 'shipped' | 'account' })[] {
  const by = new Map<string, BaseRate & { source: 'shipped' | 'account' }>();
  for (const r of SHIPPED_BASE_RATES) by.set(r.valid_from, { ...r, source: 'shipped' });
  for (const r of own) by.set(r.valid_from, { valid_from: r.valid_from, rate: r.rate, source: 'account' });
  return [...by.values()].sort((a, b) => (a.valid_from < b.valid_from ? -1 : 1));
}

/** Base rates change on 1 January and 1 July only (§ 247 (1) BGB). */
export const isHalfYearStart = (day: string): boolean => /^\d{4}-(01|07)-01$/.test(day);
