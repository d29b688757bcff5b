import type { Db } from '../../db/index.js';
import { transact } from '../../db/transact.js';
import type { AuthContext } from '../../plugins/auth.js';
import { changesNothing } from '../../shared/changes.js';
import { AppError, notFound } from '../../shared/errors.js';
import { nowIso } from '../../shared/time.js';
import type { ClientBasicRow, ClientRow } from './clients.repository.js';
import * as repo from './clients.repository.js';
import type {
  ClientBasic,
  ClientCreate,
  ClientFull,
  ClientListQuery,
  ClientUpdate,
} from './clients.schemas.js';

export function toClientFull(r: ClientRow): ClientFull {
  return {
    id: r.id,
    name: r.name,
    shortcode: r.shortcode,
    external_id: r.external_id,
    email: r.email,
    phone: r.phone,
    website: r.website,
    street: r.street,
    zip: r.zip,
    city: r.city,
    country_code: r.country_code,
    vat_id: r.vat_id,
    tax_number: r.tax_number,
    language: r.language,
    buyer_reference: r.buyer_reference,
    currency: r.currency,
    payment_term_days: r.payment_term_days,
    notes: r.notes,
    archived_at: r.archived_at,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

export function toClientBasic(r: ClientBasicRow): ClientBasic {
  return { id: r.id, name: r.name, shortcode: r.shortcode, archived_at: r.archived_at };
}

export async function getClient(db: Db, auth: AuthContext, id: number): Promise<ClientRow> {
  const row = await repo.findClient(db, auth.accountId, id);
  if (!row) throw notFound('Client');
  return row;
}

export const listClients = (db: Db, auth: AuthContext, q: ClientListQuery) =>
  repo.listClientsBasic(db, auth.accountId, q);

export const listClientsFull = (db: Db, auth: AuthContext, q: ClientListQuery) =>
  repo.listClientsFull(db, auth.accountId, q);

async function assertFree(
  db: Db,
  auth: AuthContext,
  column: 'external_id' | 'shortcode',
  value: string,
  selfId?: number,
) {
  const other = await repo.findClientBy(db, auth.accountId, column, value);
  if (other && other.id !== selfId) {
    throw new AppError(
      column === 'shortcode' ? 'shortcode_taken' : 'external_id_taken',
      `Client ${other.id} already has ${column} "${value}"`,
      { errors: [{ field: column, message: 'is already in use' }] },
    );
  }
}

export async function createClient(db: Db, auth: AuthContext, body: ClientCreate): Promise<ClientRow> {
  return transact(db, async (trx) => {
    if (body.shortcode) await assertFree(trx, auth, 'shortcode', body.shortcode);
    if (body.external_id) await assertFree(trx, auth, 'external_id', body.external_id);
    return repo.insertClient(trx, { ...body, account_id: auth.accountId });
  });
}

export async function updateClient(
  db: Db,
  auth: AuthContext,
  id: number,
  body: ClientUpdate,
): Promise<ClientRow> {
  // A PATCH that changes nothing keeps updated_at (shared rule: src/shared/changes.ts).
  const current = await getClient(db, auth, id);
  if (changesNothing(current, body)) return current;
  const row = await repo.updateClient(db, auth.accountId, id, { ...body, updated_at: nowIso() });
  if (!row) throw notFound('Client');
  return row;
}

export async function setArchived(
  db: Db,
  auth: AuthContext,
  id: number,
  archived: boolean,
): Promise<ClientRow> {
  const current = await getClient(db, auth, id);
  // Archiving twice keeps the first timestamp; restoring an active client changes nothing.
  if (Boolean(current.archived_at) === archived) return current;
  const now = nowIso();
  const row = await repo.updateClient(db, auth.accountId, id, {
    archived_at: archived ? now : null,
    updated_at: now,
  });
  return row ?? current;
}

export async function setUniqueField(
  db: Db,
  auth: AuthContext,
  id: number,
  column: 'external_id' | 'shortcode',
  value: string | null,
  force = false,
): Promise<ClientRow> {
  return transact(db, async (trx) => {
    await getClient(trx, auth, id);
    if (value !== null && force) {
      const other = await repo.findClientBy(trx, auth.accountId, column, value);
      if (other && other.id !== id) {
        await repo.updateClient(trx, auth.accountId, other.id, { [column]: null, updated_at: nowIso() });
      }
    }
    if (value !== null) await assertFree(trx, auth, column, value, id);
    const row = await repo.updateClient(trx, auth.accountId, id, { [column]: value, updated_at: nowIso() });
    return row!;
  });
}
