import type { Db } from '../../db/index.js';
import { listInvoices } from '../../modules/outgoing-invoices/invoices.service.js';
import { listNumberSeries } from '../../modules/outgoing-invoices/number-series.service.js';
import { toCents } from '../../shared/money.js';
import type { AuthContext } from '../../shared/tokens.js';

/**
 * The console dashboard's read model: the numbers at a glance, read across modules (outgoing
 * invoices, incoming invoices, number series) for one account. Outgoing figures come from the
 * invoicing service itself, so "open" means exactly what the API's `open_total` says (payments,
 * credits set off and plan deductions included); incoming documents are counted in SQL.
 */
export interface Dashboard {
  outgoing: {
    /** Per currency: booked invoices with an open amount, and those past their due date. */
    open: { currency: string; count: number; cents: number }[];
    overdue: { currency: string; count: number; cents: number }[];
    /**
     * The overdue ones by the dunning level they stand on (0: not dunned yet, 1: payment
     * reminder, 2: first dunning letter …), per currency; ordered by level, then currency.
     */
    overdueByLevel: { level: number; currency: string; count: number; cents: number }[];
    /** The scan stopped at SCAN_LIMIT booked invoices (the figures then cover those). */
    partial: boolean;
  };
  /** Incoming documents not yet approved, by extraction status (pending, done, failed, skipped). */
  incoming: { status: string; count: number }[];
  /** The last number handed out per series (kind and year). */
  series: { kind: string; year: number | null; last_number: string | null; booked_count: number }[];
}

/** Booked invoices looked at, at most (100 per page): enough for the accounts this serves. */
const SCAN_LIMIT = 5000;
const EXTRACTION_STATUSES = ['pending', 'done', 'failed', 'skipped'];

/** The services take the caller's authorisation; the console reads as the signed-in admin. */
const readerFor = (accountId: number, userId: number): AuthContext => ({
  accountId,
  userId,
  integrationId: 0,
  tokenId: 0,
  scopes: new Set(['outgoing-invoice:read', 'incoming-invoice:read']),
});

type Sums = Map<string, { count: number; cents: number }>;

/** Adds an invoice's open amount (a wire amount: at most two decimals, so exact in cents). */
function add(map: Sums, currency: string, amount: number) {
  const e = map.get(currency) ?? { count: 0, cents: 0 };
  e.count++;
  e.cents += toCents(amount)!;
  map.set(currency, e);
}

const rows = (map: Sums) =>
  [...map].map(([currency, v]) => ({ currency, ...v })).sort((a, b) => a.currency.localeCompare(b.currency));

export async function dashboardNumbers(
  db: Db,
  accountId: number,
  userId: number,
  today: string,
): Promise<Dashboard> {
  const auth = readerFor(accountId, userId);
  const open = new Map<string, { count: number; cents: number }>();
  const overdue = new Map<string, { count: number; cents: number }>();
  const byLevel = new Map<number, Sums>();
  let scanned = 0;
  let total = 0;
  for (let page = 1; scanned < SCAN_LIMIT; page++) {
    const p = await listInvoices(db, auth, { status: 'booked', page, per_page: 100 });
    total = p.total;
    for (const inv of p.rows) {
      // A credit's open amount is owed to the client, not by them.
      if (inv.type === 'credit' || inv.open_total <= 0) continue;
      add(open, inv.currency, inv.open_total);
      if (inv.due_date && inv.due_date < today) {
        add(overdue, inv.currency, inv.open_total);
        const level = inv.dunning_level ?? 0;
        if (!byLevel.has(level)) byLevel.set(level, new Map());
        add(byLevel.get(level)!, inv.currency, inv.open_total);
      }
    }
    scanned += p.rows.length;
    if (p.rows.length < 100) break;
  }

  const incoming = await db
    .selectFrom('incoming_invoices')
    .select(['extraction_status', (eb) => eb.fn.countAll<number>().as('n')])
    .where('account_id', '=', accountId)
    .where('status', '=', 'open')
    .groupBy('extraction_status')
    .execute();
  const byStatus = new Map(incoming.map((r) => [r.extraction_status, Number(r.n)]));

  const series = await listNumberSeries(db, auth, { page: 1, per_page: 100 });
  return {
    outgoing: {
      open: rows(open),
      overdue: rows(overdue),
      overdueByLevel: [...byLevel]
        .sort(([a], [b]) => a - b)
        .flatMap(([level, sums]) => rows(sums).map((r) => ({ level, ...r }))),
      partial: scanned < total,
    },
    incoming: EXTRACTION_STATUSES.map((status) => ({ status, count: byStatus.get(status) ?? 0 })),
    series: series.rows
      .map((s) => ({ kind: s.kind, year: s.year, last_number: s.last_number, booked_count: s.booked_count }))
      .sort((a, b) => (b.year ?? 0) - (a.year ?? 0) || a.kind.localeCompare(b.kind)),
  };
}
