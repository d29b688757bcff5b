import type { Api } from './helpers.js';
import { bookNow, line, makeInvoice } from './invoicing.fixtures.js';

/**
 * A booked invoice of 1,190.00 (1,000.00 + 19 % VAT) dated 2 March 2026, due 16 March: the
 * dunning tests' overdue invoice. `extra` adds to or overrides the invoice's fields.
 */
export async function overdueInvoice(api: Api, clientId: number, extra: Record<string, unknown> = {}) {
  const inv = await makeInvoice(api, {
    client_id: clientId,
    date: '2026-03-02',
    due_date: '2026-03-16',
    line_items: [line(1000)],
    ...extra,
  });
  return bookNow(api, inv.id);
}
