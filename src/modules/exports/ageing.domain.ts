/**
 * Receivables ageing as a pure function: the open amount of each booked invoice on a day, by
 * how long it has been overdue then, per client. Amounts are cents.
 */

export const AGEING_BUCKETS = ['not_due', 'days_1_30', 'days_31_60', 'days_61_90', 'over_90'] as const;
export type AgeingBucket = (typeof AGEING_BUCKETS)[number];
export type Buckets = Record<AgeingBucket, number>;

export interface OpenItem {
  invoiceId: number;
  number: string | null;
  clientId: number | null;
  clientName: string;
  dueDate: string;
  open: number;
}

const DAY = 86_400_000;

/** Whole days from `due` to `asOf` (both YYYY-MM-DD). */
export const daysOverdue = (due: string, asOf: string): number =>
  Math.round((Date.parse(`${asOf}T00:00:00Z`) - Date.parse(`${due}T00:00:00Z`)) / DAY);

/** Upper bounds (days overdue) of the buckets, in order; the last takes the rest. */
const BOUNDS: [number, AgeingBucket][] = [
  [0, 'not_due'],
  [30, 'days_1_30'],
  [60, 'days_31_60'],
  [90, 'days_61_90'],
];

export function bucketOf(due: string, asOf: string): AgeingBucket {
  const days = daysOverdue(due, asOf);
  return BOUNDS.find(([max]) => days <= max)?.[1] ?? 'over_90';
}

const empty = (): Buckets => ({ not_due: 0, days_1_30: 0, days_31_60: 0, days_61_90: 0, over_90: 0 });

export interface AgeingClient {
  client_id: number | null;
  name: string;
  buckets: Buckets;
  total: number;
  invoices: { id: number; number: string | null; due_date: string; days_overdue: number; open: number }[];
}

/** The open items of the day per client (by name, then id) with bucket totals that add up. */
export function ageing(
  items: OpenItem[],
  asOf: string,
): { clients: AgeingClient[]; totals: Buckets; total: number } {
  const byClient = new Map<string, AgeingClient>();
  const totals = empty();
  let total = 0;
  for (const item of items) {
    if (item.open === 0) continue;
    const key = String(item.clientId);
    let c = byClient.get(key);
    if (!c) {
      c = { client_id: item.clientId, name: item.clientName, buckets: empty(), total: 0, invoices: [] };
      byClient.set(key, c);
    }
    const b = bucketOf(item.dueDate, asOf);
    c.buckets[b] += item.open;
    c.total += item.open;
    totals[b] += item.open;
    total += item.open;
    c.invoices.push({
      id: item.invoiceId,
      number: item.number,
      due_date: item.dueDate,
      days_overdue: Math.max(0, daysOverdue(item.dueDate, asOf)),
      open: item.open,
    });
  }
  const clients = [...byClient.values()].sort(
    (a, b) => a.name.localeCompare(b.name) || (a.client_id ?? 0) - (b.client_id ?? 0),
  );
  return { clients, totals, total };
}
