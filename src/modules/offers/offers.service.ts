import type { Db } from '../../db/index.js';
import type { AuthContext } from '../../plugins/auth.js';
import { notFound } from '../../shared/errors.js';
import { documentTotals } from '../../shared/money.js';
import type { Page } from '../../shared/paging.js';
import { renderDocumentPdf } from '../../shared/pdf/render.js';
import {
  asDownload,
  documentParties,
  lineItemsOf,
  offerToPdf,
  toLineItem,
  totalsToWire,
} from '../outgoing-invoices/outgoing-invoices.public.js';
import type { OfferItemRow, OfferRow } from './offers.repository.js';
import * as repo from './offers.repository.js';
import type { Offer, OfferListQuery } from './offers.schemas.js';

const totalsOf = (items: OfferItemRow[]) =>
  documentTotals(items.map((i) => ({ net: Number(i.net_total), tax_rate: i.tax_rate })));

function toOffer(r: OfferRow, items: OfferItemRow[]): Offer {
  return {
    id: r.id,
    offer_number: r.offer_number,
    status: r.status as Offer['status'],
    client_id: r.client_id,
    contact_id: r.contact_id,
    project_id: r.project_id,
    title: r.title,
    date: r.date,
    valid_until: r.valid_until,
    currency: r.currency,
    intro_text: r.intro_text,
    closing_text: r.closing_text,
    ...totalsToWire(totalsOf(items)),
    line_items: items.map(toLineItem),
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

async function getRow(db: Db, auth: AuthContext, id: number): Promise<OfferRow> {
  const row = await repo.findOffer(db, auth.accountId, id);
  if (!row) throw notFound('Offer');
  return row;
}

export async function getOffer(db: Db, auth: AuthContext, id: number): Promise<Offer> {
  const row = await getRow(db, auth, id);
  return toOffer(row, await repo.offerItems(db, auth.accountId, [id]));
}

export async function listOffers(db: Db, auth: AuthContext, q: OfferListQuery): Promise<Page<Offer>> {
  const page = await repo.listOffers(db, auth.accountId, q);
  const items = await repo.offerItems(
    db,
    auth.accountId,
    page.rows.map((r) => r.id),
  );
  return {
    ...page,
    rows: page.rows.map((r) =>
      toOffer(
        r,
        items.filter((i) => i.offer_id === r.id),
      ),
    ),
  };
}

export const listOfferItems = lineItemsOf(getRow, repo.offerItemsPage);

export async function offerPdf(db: Db, auth: AuthContext, id: number) {
  const row = await getRow(db, auth, id);
  const [items, { seller, buyer, attention }] = await Promise.all([
    repo.offerItems(db, auth.accountId, [id]),
    documentParties(db, auth.accountId, row),
  ]);
  const doc = offerToPdf(
    {
      ...row,
      items: items.map((i) => ({ ...i, unit_price: Number(i.unit_price), net_total: Number(i.net_total) })),
      totals: totalsOf(items),
      attention,
    },
    seller,
    buyer,
  );
  return asDownload(await renderDocumentPdf(doc), `${row.offer_number ?? `offer-${row.id}`}.pdf`);
}
