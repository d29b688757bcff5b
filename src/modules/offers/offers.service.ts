import type { Db } from '../../db/index.js';
import { transact } from '../../db/transact.js';
import type { AuthContext } from '../../plugins/auth.js';
import { changedFields, sameValue } from '../../shared/changes.js';
import { type FieldError, notFound, validationFailed } from '../../shared/errors.js';
import { documentTotals } from '../../shared/money.js';
import type { Page } from '../../shared/paging.js';
import { renderDocumentPdf } from '../../shared/pdf/render.js';
import { nowIso } from '../../shared/time.js';
import {
  asDownload,
  documentParties,
  importDefaults,
  lineItemsOf,
  offerToPdf,
  type ParsedLine,
  parseLineItems,
  toLineItem,
  totalsToWire,
} from '../outgoing-invoices/outgoing-invoices.public.js';
import { clientInAccount, contactInAccount, projectInAccount } from './offer-refs.read-model.js';
import { assertChangeable, assertDecidable, OPEN_STATUSES, periodErrors } from './offers.domain.js';
import type { OfferItemRow, OfferRow } from './offers.repository.js';
import * as repo from './offers.repository.js';
import type { Offer, OfferCreate, OfferListQuery, OfferUpdate } from './offers.schemas.js';

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
    invoice_id: r.invoice_id,
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
  return asDownload(
    await renderDocumentPdf({ ...doc, changed_at: row.updated_at }),
    `${row.offer_number ?? `offer-${row.id}`}.pdf`,
  );
}

/** The statuses in which an offer may still change: every one but accepted. */
const CHANGEABLE = ['created', 'sent', 'declined'] as const;

/** Client, contact and project are of the account (422 naming each), the period in order. */
async function checkRefs(
  db: Db,
  auth: AuthContext,
  body: OfferUpdate,
  period: { date: string | null; valid_until: string | null },
): Promise<void> {
  const errors: FieldError[] = [];
  const refs = [
    ['client_id', body.client_id, clientInAccount, 'no such client'],
    ['contact_id', body.contact_id, contactInAccount, 'no such contact'],
    ['project_id', body.project_id, projectInAccount, 'no such project'],
  ] as const;
  for (const [field, id, found, message] of refs)
    if (id != null && !(await found(db, auth.accountId, id))) errors.push({ field, message });
  errors.push(...periodErrors(period.date, period.valid_until));
  if (errors.length > 0) throw validationFailed(errors);
}

const LINE_FIELDS = [
  'title',
  'description',
  'quantity',
  'unit',
  'unit_price',
  'tax_rate',
  'discount',
] as const;

/** Whether new lines say what the stored ones say, line by line. */
const sameLines = (stored: OfferItemRow[], lines: ParsedLine[]) =>
  stored.length === lines.length &&
  stored.every((s, i) => LINE_FIELDS.every((f) => sameValue(s[f], lines[i]![f])));

/** The offer with its lines, as the API answers it. */
async function answer(db: Db, auth: AuthContext, row: OfferRow): Promise<Offer> {
  return toOffer(row, await repo.offerItems(db, auth.accountId, [row.id]));
}

/** POST /offers (beyond the specification). */
export function createOffer(db: Db, auth: AuthContext, body: OfferCreate): Promise<Offer> {
  const lines = parseLineItems(body.line_items ?? []);
  return transact(db, async (trx) => {
    await checkRefs(trx, auth, body, { date: body.date ?? null, valid_until: body.valid_until ?? null });
    const { currency } = await (await importDefaults(trx, auth.accountId))(body.client_id ?? null);
    const now = nowIso();
    const row = await repo.insertOfferReturning(trx, {
      account_id: auth.accountId,
      offer_number: body.offer_number ?? null,
      status: body.status ?? 'created',
      client_id: body.client_id ?? null,
      contact_id: body.contact_id ?? null,
      project_id: body.project_id ?? null,
      title: body.title ?? null,
      date: body.date ?? null,
      valid_until: body.valid_until ?? null,
      currency: body.currency ?? currency,
      intro_text: body.intro_text ?? null,
      closing_text: body.closing_text ?? null,
      created_at: now,
      updated_at: now,
    });
    await repo.insertOfferItems(trx, auth.accountId, row.id, lines);
    return answer(trx, auth, row);
  });
}

/**
 * PATCH /offers/{id}: the given fields; `line_items` replaces every line. An accepted or
 * invoiced offer: 409 `offer_locked`. Nothing written when nothing differs.
 */
export function updateOffer(db: Db, auth: AuthContext, id: number, body: OfferUpdate): Promise<Offer> {
  const { line_items, ...fields } = body;
  const lines = line_items === undefined ? undefined : parseLineItems(line_items);
  return transact(db, async (trx) => {
    const row = await getRow(trx, auth, id);
    assertChangeable(row);
    await checkRefs(trx, auth, body, {
      date: fields.date !== undefined ? fields.date : row.date,
      valid_until: fields.valid_until !== undefined ? fields.valid_until : row.valid_until,
    });
    const items = await repo.offerItems(trx, auth.accountId, [id]);
    const linesChange = lines !== undefined && !sameLines(items, lines);
    if (Object.keys(changedFields(row, fields)).length === 0 && !linesChange) return toOffer(row, items);
    // The lines live in a table of their own: updated_at tells the feed the offer changed.
    const updated = await repo.updateOfferWhile(trx, auth.accountId, id, CHANGEABLE, {
      ...fields,
      updated_at: nowIso(),
    });
    // Accepted or invoiced by a concurrent request: its state says why.
    if (!updated) assertChangeable(await getRow(trx, auth, id));
    if (linesChange) {
      await repo.deleteOfferItems(trx, auth.accountId, id);
      await repo.insertOfferItems(trx, auth.accountId, id, lines!);
    }
    return answer(trx, auth, updated!);
  });
}

/** DELETE /offers/{id}: gone with its lines; 409 `offer_locked` when accepted or invoiced. */
export function deleteOffer(db: Db, auth: AuthContext, id: number): Promise<void> {
  return transact(db, async (trx) => {
    const row = await getRow(trx, auth, id);
    assertChangeable(row);
    await repo.deleteOfferItems(trx, auth.accountId, id);
    // The condition again in the statement: an accept or invoice that came in meanwhile wins.
    if (!(await repo.deleteOfferWhile(trx, auth.accountId, id, CHANGEABLE)))
      assertChangeable(await getRow(trx, auth, id));
  });
}

/**
 * POST /offers/{id}/accept and …/decline: only an open (created or sent) offer without an
 * invoice; 409 `offer_not_open` (or `offer_locked`) otherwise.
 */
export function decideOffer(
  db: Db,
  auth: AuthContext,
  id: number,
  status: 'accepted' | 'declined',
): Promise<Offer> {
  return transact(db, async (trx) => {
    assertDecidable(await getRow(trx, auth, id));
    const row = await repo.updateOfferWhile(trx, auth.accountId, id, OPEN_STATUSES, {
      status,
      updated_at: nowIso(),
    });
    // Decided or invoiced by a concurrent request: its state says which 409.
    if (!row) assertDecidable(await getRow(trx, auth, id));
    return answer(trx, auth, row!);
  });
}
