import { hoursOf, minutesAmount } from '../../shared/hours.js';
import { lineNetCents } from '../../shared/money.js';

/**
 * Pricing tracked time, pure: which rate an effort is billed at, how its minutes are rounded,
 * and what an hour count is worth. The money rule (docs/billing.md, "Rates"):
 *
 * - Rates are integer cents an hour. An effort's rate is the first set one of the rate order
 *   (effort > task > team member > project > user > account); none set: the effort has no
 *   rate and is not billed (422 naming it).
 * - An effort's billed minutes are its minutes rounded up to a multiple of `rounding_minutes`.
 * - Hours = minutes / 60 rounded half up to 4 decimals (invoice quantities have four), as a
 *   decimal string; the amount = hours × rate rounded half away from zero to the cent, the
 *   invoice line rule (`lineNetCents`), never floats.
 * - An effort alone is valued as a one-effort line; a line of several efforts (one rate) is
 *   valued on the sum of their minutes. So an invoice grouped by effort equals the report to
 *   the cent; other groupings may differ from it by the rounding of the hours (at most half a
 *   cent an effort, far less in practice).
 */

export const RATE_SOURCES = ['effort', 'task', 'team', 'project', 'user', 'account'] as const;
export type RateSource = (typeof RATE_SOURCES)[number];

/** The rate set at each level for one effort (cents an hour; null: not set there). */
export type RateLevels = Record<RateSource, number | null>;

export interface ResolvedRate {
  rate: number;
  source: RateSource;
}

/** The first rate set along the rate order, with where it came from; undefined: none is set. */
export function resolveRate(levels: RateLevels): ResolvedRate | undefined {
  for (const source of RATE_SOURCES) {
    const rate = levels[source];
    if (rate !== null && rate !== undefined) return { rate, source };
  }
  return undefined;
}

export const MAX_ROUNDING_MINUTES = 60;

/** Minutes rounded up to a multiple of `step` (1: as tracked). */
export function roundUpMinutes(minutes: number, step: number): number {
  if (!Number.isInteger(step) || step < 1) throw new RangeError(`rounding step ${step}`);
  if (minutes <= 0) return 0;
  return Math.ceil(minutes / step) * step;
}

export { hoursOf } from '../../shared/hours.js';

/** What `minutes` at `rate` cents an hour are worth, in cents (the invoice line rule). */
export const amountOf = minutesAmount;

export const GROUP_BY = ['effort', 'task', 'user', 'day', 'none'] as const;
export type GroupBy = (typeof GROUP_BY)[number];

/** An effort as billing prices it. */
export interface PricedEffort {
  id: number;
  project_id: number;
  task_id: number | null;
  user_id: number;
  date: string;
  description: string | null;
  /** Minutes tracked. */
  minutes: number;
  rate: number;
  source: RateSource;
}

export interface BillLine {
  /** What groups the efforts (project, then the `group_by` key), for the title. */
  project_id: number;
  key: string | number | null;
  /** Billed minutes (the sum of the efforts' rounded minutes) and hours (quantity). */
  minutes: number;
  hours: string;
  rate: number;
  net: number;
  efforts: { id: number; minutes: number; rate: number; source: RateSource }[];
  /** The first effort of the line (its title for `group_by=effort`). */
  first: PricedEffort;
}

const keyOf = (e: PricedEffort, by: GroupBy): string | number | null => {
  switch (by) {
    case 'effort':
      return e.id;
    case 'task':
      return e.task_id;
    case 'user':
      return e.user_id;
    case 'day':
      return e.date;
    case 'none':
      return null;
  }
};

/**
 * The lines of an invoice from efforts: one per (project, group key, rate), in the order of
 * their first effort (efforts sorted by date, then id), each effort rounded up first.
 */
export function billLines(efforts: readonly PricedEffort[], by: GroupBy, rounding: number): BillLine[] {
  const sorted = [...efforts].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.id - b.id));
  const lines = new Map<string, BillLine>();
  for (const e of sorted) {
    const key = keyOf(e, by);
    const id = JSON.stringify([e.project_id, key, e.rate]);
    let line = lines.get(id);
    if (!line) {
      line = {
        project_id: e.project_id,
        key,
        minutes: 0,
        hours: '0',
        rate: e.rate,
        net: 0,
        efforts: [],
        first: e,
      };
      lines.set(id, line);
    }
    const minutes = roundUpMinutes(e.minutes, rounding);
    line.minutes += minutes;
    line.efforts.push({ id: e.id, minutes, rate: e.rate, source: e.source });
  }
  const out = [...lines.values()];
  for (const l of out) {
    l.hours = hoursOf(l.minutes);
    l.net = lineNetCents(l.hours, l.rate);
  }
  return out;
}

/** EU member states (ISO 3166-1; Greece as GR), for the reverse charge of services. */
const EU = new Set(
  'AT BE BG CY CZ DE DK EE ES FI FR GR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK'.split(' '),
);

/** Standard VAT rates (percent) of the seller countries the service knows. */
export const STANDARD_VAT: Readonly<Record<string, string>> = {
  AT: '20',
  BE: '21',
  CH: '8.1',
  CZ: '21',
  DE: '19',
  DK: '25',
  ES: '21',
  FI: '25.5',
  FR: '20',
  IE: '23',
  IT: '22',
  LU: '17',
  NL: '21',
  PL: '23',
  PT: '23',
  SE: '25',
};

export interface TaxTreatment {
  tax_rate: string;
  /** AE for the reverse charge; null: the standard rate. */
  tax_exemption_category: 'AE' | null;
}

/**
 * The tax of services to a client: a business client (VAT id) in another EU country than the
 * seller pays the reverse charge (0 %, AE); everyone else the seller's standard rate.
 * Undefined: the seller's country has no known standard rate (the caller must name one).
 */
export function taxTreatment(
  sellerCountry: string | null,
  client: { country_code: string | null; vat_id: string | null },
): TaxTreatment | undefined {
  const seller = sellerCountry?.toUpperCase() ?? null;
  const buyer = client.country_code?.toUpperCase() ?? null;
  if (seller && buyer && buyer !== seller && EU.has(seller) && EU.has(buyer) && client.vat_id?.trim())
    return { tax_rate: '0', tax_exemption_category: 'AE' };
  const standard = seller ? STANDARD_VAT[seller] : undefined;
  return standard === undefined ? undefined : { tax_rate: standard, tax_exemption_category: null };
}
