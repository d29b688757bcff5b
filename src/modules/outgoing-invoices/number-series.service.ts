import type { Db } from '../../db/index.js';
import type { AuthContext } from '../../plugins/auth.js';
import { type Page, pageOf } from '../../shared/paging.js';
import { accountProfile, numberFormatFor } from '../account/profile.public.js';
import { formatInvoiceNumber, type NumberKind } from './invoices.domain.js';
import { findAccount } from './invoices.read-model.js';
import * as series from './number-series.repository.js';
import type { NumberSeries } from './number-series.schemas.js';

/**
 * Each number sequence with the evidence an auditor asks for: every number it handed out
 * (1 … last) is held by a booked invoice; where one is not, the gap names the deleted invoice
 * that holds it (numbers are never reused), or says that none does. Numbers are rebuilt with
 * the account's current format: after a format change, the older numbers of a year show as gaps.
 */
export async function listNumberSeries(
  db: Db,
  auth: AuthContext,
  q: { page?: number; per_page?: number },
): Promise<Page<NumberSeries>> {
  const [account, counters, invoices] = await Promise.all([
    findAccount(db, auth.accountId),
    series.counters(db, auth.accountId),
    series.numbered(db, auth.accountId),
  ]);
  const profile = accountProfile(account);
  const byNumber = new Map(invoices.map((i) => [i.invoice_number!, i]));
  const all = counters.map((c): NumberSeries => {
    const kind = c.kind as NumberKind;
    const format = numberFormatFor(profile, kind);
    const year = Number(c.year);
    const last = Number(c.last_value);
    const number = (seq: number) => formatInvoiceNumber(format, year, seq);
    const gaps: NumberSeries['gaps'] = [];
    let booked = 0;
    for (let seq = 1; seq <= last; seq++) {
      const holder = byNumber.get(number(seq));
      if (holder && !holder.deleted_at && holder.status === 'booked') {
        booked++;
        continue;
      }
      gaps.push({
        sequence: seq,
        invoice_number: number(seq),
        reason: holder ? (holder.deleted_at ? 'deleted' : 'not_booked') : 'unexplained',
        invoice_id: holder?.id ?? null,
        deleted_at: holder?.deleted_at ?? null,
        deleted_by: holder?.deleted_by ?? null,
      });
    }
    return {
      kind,
      year: year === 0 ? null : year,
      format,
      prefix: formatInvoiceNumber(format.split(/\{N+\}/)[0]!, year, 0),
      last_sequence: last,
      last_number: last > 0 ? number(last) : null,
      booked_count: booked,
      gap_free: gaps.length === 0,
      gaps,
    };
  });
  const { page, per_page } = pageOf(q);
  return { rows: all.slice((page - 1) * per_page, page * per_page), total: all.length, page, per_page };
}
